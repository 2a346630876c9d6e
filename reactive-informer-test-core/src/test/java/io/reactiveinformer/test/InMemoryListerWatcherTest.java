package io.reactiveinformer.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The in-memory front: same state, same answers as HTTP, and virtual time. */
class InMemoryListerWatcherTest {

    private static final ResourceType<V1ConfigMap> MAPS = ResourceType.of(V1ConfigMap.class);

    private final VirtualTimeScheduler clock = VirtualTimeScheduler.create();
    private final ClusterState state = ClusterState.builder().scheduler(clock).historyLimit(20).build();
    private final InMemoryListerWatcher<V1ConfigMap> lw = InMemoryListerWatcher.of(state, MAPS, "shop");

    private static V1ConfigMap map(String name, String app) {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("shop").name(name).labels(Map.of("app", app)));
    }

    @Test
    void listsTheSameAsTheHttpFrontOfTheSameState() {
        for (int i = 0; i < 7; i++) {
            state.create(map("m" + i, i % 2 == 0 ? "web" : "db"));
        }
        try (SimulatedApiServer server = SimulatedApiServer.start(state);
             KubernetesClient client = KubernetesClient.create(server.clientConfig().withScheduler(Schedulers.parallel()))) {
            ResourceClient<V1ConfigMap> http = client.resource(V1ConfigMap.class).inNamespace("shop");
            ListOptions page = ListOptions.none().withLimit(3).withSelectors("app=web", null);
            ObjectList<V1ConfigMap> viaHttp = http.list(page).block();
            ObjectList<V1ConfigMap> inMemory = lw.list(page).block();
            assertThat(inMemory).isEqualTo(viaHttp);
            assertThat(lw.list(page.withContinue(inMemory.continueToken())).block())
                    .isEqualTo(http.list(page.withContinue(viaHttp.continueToken())).block());
        }
    }

    @Test
    void watchTimesOutAndBookmarksInVirtualTime() {
        state.create(map("a", "web"));
        StepVerifier.withVirtualTime(() -> lw.watch(WatchOptions.from("2").withTimeoutSeconds(150)), () -> clock, Long.MAX_VALUE)
                .expectSubscription()
                .expectNoEvent(Duration.ofSeconds(60))
                .assertNext(e -> {
                    assertThat(e.type()).isEqualTo(WatchEvent.Type.BOOKMARK);
                    assertThat(e.object().getMetadata().getResourceVersion()).isEqualTo("2");
                })
                .then(() -> state.create(map("b", "db")))
                .assertNext(e -> assertThat(e.object().getMetadata().getName()).isEqualTo("b"))
                .thenAwait(Duration.ofSeconds(60))
                .assertNext(e -> assertThat(e.object().getMetadata().getResourceVersion()).isEqualTo("3"))
                .thenAwait(Duration.ofSeconds(30))
                .verifyComplete();
        assertThat(state.watcherCount()).isZero();
    }

    @Test
    void expiredVersionsAndBadSelectorsAreTypedErrors() {
        for (int i = 0; i < 25; i++) {
            state.create(map("m" + i, "web"));
        }
        StepVerifier.create(lw.watch(WatchOptions.from("3")))
                .expectErrorSatisfies(e -> assertThat(((KubernetesApiException) e).code()).isEqualTo(410))
                .verify();
        StepVerifier.create(lw.withSelectors(null, "spec.x=y").watch(WatchOptions.from("3")))
                .expectErrorSatisfies(e -> assertThat(((KubernetesApiException) e).code()).isEqualTo(400))
                .verify();
        StepVerifier.create(lw.list(ListOptions.none().withResourceVersion("3", "Exact")))
                .expectError(KubernetesApiException.Gone.class)
                .verify();
    }

    @Test
    void slowWatcherBehindTheHistoryWindowIsClosedWith410() {
        state.create(map("a", "web"));
        StepVerifier.create(lw.watch(WatchOptions.from("1")), 1)
                .expectNextCount(1)
                .then(() -> {
                    for (int i = 0; i < 30; i++) {
                        state.create(map("m" + i, "web"));
                    }
                })
                .thenRequest(Long.MAX_VALUE)
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(KubernetesApiException.Gone.class);
                    assertThat(e.getMessage()).contains("too old resource version: 2");
                })
                .verify();
        assertThat(state.watcherCount()).isZero();
    }

    @Test
    void watcherThatKeepsUpIsNeverClosed() {
        StepVerifier.create(lw.watch(WatchOptions.from("1")).take(100))
                .then(() -> {
                    for (int i = 0; i < 100; i++) {
                        state.create(map("m" + i, "web"));
                    }
                })
                .expectNextCount(100)
                .verifyComplete();
    }

    @Test
    void streamingListThenLiveEvents() {
        state.create(map("a", "web"));
        state.create(map("b", "db"));
        StepVerifier.create(lw.withSelectors("app=web", null).watch(WatchOptions.from("").withInitialEvents()))
                .assertNext(e -> assertThat(e.object().getMetadata().getName()).isEqualTo("a"))
                .assertNext(e -> assertThat(e.object().getMetadata().getAnnotations())
                        .containsEntry(ClusterState.INITIAL_EVENTS_END, "true"))
                .then(() -> state.create(map("c", "web")))
                .assertNext(e -> assertThat(e.type()).isEqualTo(WatchEvent.Type.ADDED))
                .thenCancel()
                .verify();
    }
}
