package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.RawRequest;
import io.reactiveinformer.client.ResourceClient;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import tools.jackson.databind.JsonNode;

/**
 * WATCH: resume from a version, bookmarks, the server's timeout, selectors, streaming lists.
 *
 * <p>The real server sends periodic bookmarks about once a minute and sometimes one shortly before
 * the timeout; neither is guaranteed within a short watch, so bookmarks are checked for what they
 * carry whenever they come, and only the streaming list's closing bookmark is required.
 */
abstract class WatchContract extends ClientContract {

    private static final int WATCH_SECONDS = 3;

    WatchContract(Backend backend) {
        super(backend);
    }

    @Test
    void watchFromAVersionReplaysLaterChangesInOrderAndEndsNormallyAtTheTimeout() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("watch"));
        String from = await(maps.list(ListOptions.none())).resourceVersion();
        V1ConfigMap created = await(maps.create(configMap("w1", Map.of("k", "1"))));
        V1ConfigMap patched = await(maps.patch("w1", PatchType.MERGE, "{\"data\":{\"k\":\"2\"}}"));
        await(maps.delete("w1"));
        V1ConfigMap other = await(maps.create(configMap("w2", Map.of())));

        long start = System.nanoTime();
        List<WatchEvent<V1ConfigMap>> events = maps.watch(WatchOptions.from(from).withTimeoutSeconds(WATCH_SECONDS))
                .collectList().block(TIMEOUT.plusSeconds(WATCH_SECONDS));
        Duration open = Duration.ofNanos(System.nanoTime() - start);

        List<WatchEvent<V1ConfigMap>> changes = events.stream().filter(e -> e.type() != WatchEvent.Type.BOOKMARK).toList();
        assertThat(changes).extracting(ClientContract::describe)
                .containsExactly("ADDED w1", "MODIFIED w1", "DELETED w1", "ADDED w2");
        assertThat(changes.get(0).object().getMetadata().getResourceVersion())
                .isEqualTo(created.getMetadata().getResourceVersion());
        assertThat(changes.get(1).object().getData()).containsEntry("k", "2");
        assertThat(changes.get(1).object().getMetadata().getResourceVersion())
                .isEqualTo(patched.getMetadata().getResourceVersion());
        assertThat(rv(rvOf(changes.get(2)))).isBetween(rv(patched.getMetadata().getResourceVersion()) + 1,
                rv(other.getMetadata().getResourceVersion()) - 1);
        assertVersionsNeverGoBack(events);
        assertBookmarksCarryOnlyAVersion(events);
        // the server held the watch open until its timeout: a normal end, re-watch from the last version
        assertThat(open).isGreaterThanOrEqualTo(Duration.ofSeconds(WATCH_SECONDS).minusMillis(500));
    }

    @Test
    void liveChangesArriveWhileTheWatchIsOpen() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("live"));
        String from = await(maps.create(configMap("first", Map.of()))).getMetadata().getResourceVersion();

        StepVerifier.create(maps.watch(WatchOptions.from(from).withTimeoutSeconds(60))
                        .filter(e -> e.type() != WatchEvent.Type.BOOKMARK))
                .then(() -> maps.create(configMap("second", Map.of())).subscribe())
                .assertNext(e -> assertThat(describe(e)).isEqualTo("ADDED second"))
                .then(() -> maps.patch("second", PatchType.MERGE, "{\"data\":{\"a\":\"b\"}}").subscribe())
                .assertNext(e -> assertThat(describe(e)).isEqualTo("MODIFIED second"))
                .thenCancel()
                .verify(TIMEOUT);
    }

    @Test
    void aLabelSelectedWatchSeesObjectsEnterAndLeaveTheSelection() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("selwatch"));
        String from = await(maps.list(ListOptions.none())).resourceVersion();
        await(maps.create(configMap("m", Map.of(), Map.of("tier", "web"))));
        await(maps.create(configMap("other", Map.of(), Map.of("tier", "db"))));
        V1ConfigMap left = await(maps.patch("m", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"tier\":\"db\"}}}"));
        await(maps.patch("m", PatchType.MERGE, "{\"data\":{\"unseen\":\"yes\"}}"));
        await(maps.patch("m", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"tier\":\"web\"}}}"));
        await(maps.patch("m", PatchType.MERGE, "{\"data\":{\"seen\":\"yes\"}}"));

        List<WatchEvent<V1ConfigMap>> events = maps.withLabelSelector("tier=web")
                .watch(WatchOptions.from(from).withTimeoutSeconds(2))
                .filter(e -> e.type() != WatchEvent.Type.BOOKMARK)
                .collectList().block(TIMEOUT);

        assertThat(events).extracting(ClientContract::describe)
                .containsExactly("ADDED m", "DELETED m", "ADDED m", "MODIFIED m");
        // leaving the selection is told with the object as it last matched, at the version of the change
        assertThat(events.get(1).object().getMetadata().getLabels()).containsEntry("tier", "web");
        assertThat(rvOf(events.get(1))).isEqualTo(left.getMetadata().getResourceVersion());
        assertThat(events.get(3).object().getData()).containsKeys("seen", "unseen");
    }

    @Test
    void streamingListSendsTheStateThenTheInitialEventsEndBookmarkThenChanges() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("stream"));
        Flux.just("s1", "s2", "s3").concatMap(n -> maps.create(configMap(n, Map.of()))).then().block(TIMEOUT);
        long lastCreated = rv(await(maps.list(ListOptions.none())).resourceVersion());
        List<WatchEvent<V1ConfigMap>> initial = new ArrayList<>();

        StepVerifier.create(maps.watch(WatchOptions.from(null).withInitialEvents().withTimeoutSeconds(60))
                        .filter(e -> e.type() != WatchEvent.Type.BOOKMARK || isInitialEventsEnd(e)))
                .recordWith(() -> initial)
                .expectNextCount(3)
                .assertNext(end -> {
                    assertThat(isInitialEventsEnd(end)).as("bookmark ending the initial events").isTrue();
                    assertThat(rv(rvOf(end))).isGreaterThanOrEqualTo(lastCreated);
                    assertBookmarksCarryOnlyAVersion(List.of(end));
                })
                .then(() -> maps.create(configMap("s4", Map.of())).subscribe())
                .assertNext(e -> assertThat(describe(e)).isEqualTo("ADDED s4"))
                .thenCancel()
                .verify(TIMEOUT);

        assertThat(initial.subList(0, 3)).extracting(ClientContract::describe)
                .containsExactlyInAnyOrder("ADDED s1", "ADDED s2", "ADDED s3");
    }

    /**
     * {@code sendInitialEvents} without {@code resourceVersionMatch=NotOlderThan} is refused as invalid: the
     * same 422 as a server with the WatchList feature off answers any streaming list, which the reflector
     * takes for a server without streaming lists (it falls back to LIST at once).
     */
    @Test
    void aStreamingListWithoutNotOlderThanIsRefusedAsInvalid() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("stream-invalid"));

        StepVerifier.create(maps.watch(new WatchOptions(null, null, null, null, 60, true, true)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(KubernetesApiException.class,
                        api -> assertThat(api.code()).isEqualTo(422)))
                .verify(TIMEOUT);
    }

    /**
     * The bytes of a bookmark: the watched kind, its apiVersion and metadata with nothing but the
     * resourceVersion and, ending the initial events, the annotation saying so. The models cannot show
     * fields they leave out, hence the raw stream.
     */
    @Test
    void aBookmarkOnTheWireIsTheKindWithOnlyAVersionAndTheAnnotation() {
        String ns = namespace("raw-bookmark");
        await(configMaps(ns).create(configMap("b1", Map.of("k", "v"))));
        String stream = new String(await(admin().raw(RawRequest.get("/api/v1/namespaces/" + ns + "/configmaps?watch=true"
                + "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1")
                .withTimeout(TIMEOUT))).body(), StandardCharsets.UTF_8);

        JsonNode end = Arrays.stream(stream.split("\n")).map(admin().json().mapper()::readTree)
                .filter(e -> e.path("object").path("metadata").path("annotations").has("k8s.io/initial-events-end"))
                .findFirst().orElseThrow().path("object");
        assertThat(end.propertyNames()).containsExactlyInAnyOrder("kind", "apiVersion", "metadata");
        assertThat(end.path("kind").asString()).isEqualTo("ConfigMap");
        assertThat(end.path("apiVersion").asString()).isEqualTo("v1");
        assertThat(end.path("metadata").propertyNames()).containsExactlyInAnyOrder("resourceVersion", "annotations");
        assertThat(end.path("metadata").path("annotations").propertyNames()).containsExactly("k8s.io/initial-events-end");
        assertThat(end.path("metadata").path("annotations").path("k8s.io/initial-events-end").asString()).isEqualTo("true");
    }

    private static boolean isInitialEventsEnd(WatchEvent<V1ConfigMap> event) {
        Map<String, String> annotations = event.object().getMetadata().getAnnotations();
        return event.type() == WatchEvent.Type.BOOKMARK && annotations != null
                && "true".equals(annotations.get("k8s.io/initial-events-end"));
    }

    private static void assertVersionsNeverGoBack(List<WatchEvent<V1ConfigMap>> events) {
        long last = 0;
        for (WatchEvent<V1ConfigMap> event : events) {
            assertThat(rv(rvOf(event))).as(describe(event)).isGreaterThanOrEqualTo(last);
            last = rv(rvOf(event));
        }
    }

    /**
     * A bookmark is the kind with a resourceVersion (and maybe an annotation): no name, no data. The models
     * initialise their maps, so an absent {@code data} reads as an empty map.
     */
    private static void assertBookmarksCarryOnlyAVersion(List<WatchEvent<V1ConfigMap>> events) {
        for (WatchEvent<V1ConfigMap> event : events) {
            if (event.type() == WatchEvent.Type.BOOKMARK) {
                assertThat(event.object().getMetadata().getResourceVersion()).isNotEmpty();
                assertThat(event.object().getMetadata().getName()).isNull();
                assertThat(event.object().getData()).isNullOrEmpty();
                assertThat(event.object().getKind()).isEqualTo("ConfigMap");
            }
        }
    }
}
