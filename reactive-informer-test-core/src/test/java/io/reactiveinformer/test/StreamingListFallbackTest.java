package io.reactiveinformer.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * An informer with the default options (streaming lists) against servers that have none: it syncs with
 * LIST, at once when the server refuses the streaming list (422, as kube-apiserver with the WatchList feature
 * off), after the watch's timeout when the server serves it as a plain watch (one that ignores
 * {@code sendInitialEvents}); against a server that has them it never lists.
 */
class StreamingListFallbackTest {

    private static final ResourceType<V1ConfigMap> MAPS = ResourceType.of(V1ConfigMap.class);

    private final VirtualTimeScheduler clock = VirtualTimeScheduler.create();
    private final ClusterState state = ClusterState.builder().scheduler(clock).build();
    private final InMemoryListerWatcher<V1ConfigMap> server = InMemoryListerWatcher.of(state, MAPS, "ns");
    /** The informer's requests: {@code STREAM}, {@code LIST} or {@code WATCH}, each with its virtual time (ms). */
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<WatchOptions> streamingLists = new CopyOnWriteArrayList<>();
    private Disposable stop;

    @AfterEach
    void stopInformer() {
        stop.dispose();
        clock.dispose();
    }

    @Test
    void aServerWithStreamingListsIsNeverListed() {
        SharedIndexInformer<V1ConfigMap> informer = startWithTwoMaps(server::watch);

        assertThat(informer.isSynced()).isTrue();
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
        assertThat(requests).containsExactly("STREAM 0");
    }

    @Test
    void aServerThatRefusesStreamingListsIsListedAtOnce() {
        SharedIndexInformer<V1ConfigMap> informer = startWithTwoMaps(streaming -> Flux.error(KubernetesApiException.of(
                "WATCH configmaps", 422, new V1Status().code(422).reason("Invalid")
                        .message("sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"),
                null)));

        assertThat(informer.isSynced()).isTrue();
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
        assertThat(requests).as("no backoff after the refusal").containsExactly("STREAM 0", "LIST 0", "WATCH 0");
    }

    @Test
    void aServerThatServesAPlainWatchIsListedWhenTheWatchTimesOut() {
        SharedIndexInformer<V1ConfigMap> informer = startWithTwoMaps(streaming -> server.watch(new WatchOptions(
                streaming.labelSelector(), streaming.fieldSelector(), streaming.resourceVersion(), null,
                streaming.timeoutSeconds(), streaming.allowBookmarks(), false, streaming.shardSelector())));
        long timeoutMillis = Duration.ofSeconds(streamingLists.get(0).timeoutSeconds()).toMillis();

        clock.advanceTimeBy(Duration.ofMillis(timeoutMillis - 1));
        assertThat(informer.isSynced()).as("the plain watch's ADDED events are no list").isFalse();
        clock.advanceTimeBy(Duration.ofMillis(1));

        assertThat(informer.isSynced()).isTrue();
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
        assertThat(requests).containsExactly("STREAM 0", "LIST " + timeoutMillis, "WATCH " + timeoutMillis);
    }

    /** Starts an informer with the default options on a server of two maps that answers streaming lists so. */
    private SharedIndexInformer<V1ConfigMap> startWithTwoMaps(
            Function<WatchOptions, Flux<WatchEvent<V1ConfigMap>>> streamingList) {
        state.create(map("a"));
        state.create(map("b"));
        ListerWatcher<V1ConfigMap> recorded = new ListerWatcher<>() {
            @Override
            public Mono<ObjectList<V1ConfigMap>> list(ListOptions options) {
                requests.add("LIST " + clock.now(TimeUnit.MILLISECONDS));
                return server.list(options);
            }

            @Override
            public Flux<WatchEvent<V1ConfigMap>> watch(WatchOptions options) {
                if (!options.sendInitialEvents()) {
                    requests.add("WATCH " + clock.now(TimeUnit.MILLISECONDS));
                    return server.watch(options);
                }
                requests.add("STREAM " + clock.now(TimeUnit.MILLISECONDS));
                streamingLists.add(options);
                return streamingList.apply(options);
            }
        };
        SharedIndexInformer<V1ConfigMap> informer = SharedIndexInformer.builder(V1ConfigMap.class, recorded)
                .scheduler(clock).build();
        stop = informer.start();
        clock.advanceTime();
        return informer;
    }

    private static V1ConfigMap map(String name) {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("ns").name(name));
    }
}
