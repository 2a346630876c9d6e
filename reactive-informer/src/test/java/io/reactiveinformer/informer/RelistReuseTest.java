package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.cache.ConcurrentIndexer;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A relist keeps the cached instance of every object the server did not change (same key and resourceVersion),
 * so that it does not hold a second copy of the store, and changes nothing else: changed objects are the new
 * ones, vanished ones go, the transform runs once per object state, and handlers are told what they were told
 * before.
 */
class RelistReuseTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /**
     * Lists and watches fresh copies, as a client decoding the server's bytes does: a LIST through the default
     * page-level interning, a streaming list through the reflector's interning of each initial event.
     */
    private static final class Decoding implements ListerWatcher<V1Pod> {
        private final FakePodServer server;

        Decoding(FakePodServer server) {
            this.server = server;
        }

        @Override
        public Mono<ObjectList<V1Pod>> list(ListOptions options) {
            return server.list(options).map(page -> new ObjectList<>(page.items().stream().map(RelistReuseTest::copy)
                    .toList(), page.resourceVersion(), page.continueToken(), page.remainingItemCount()));
        }

        @Override
        public Flux<WatchEvent<V1Pod>> watch(WatchOptions options) {
            return server.watch(options).map(event -> event.type() == WatchEvent.Type.BOOKMARK ? event
                    : new WatchEvent<>(event.type(), copy(event.object())));
        }
    }

    private static V1Pod copy(V1Pod pod) {
        V1ObjectMeta m = pod.getMetadata();
        return new V1Pod().metadata(new V1ObjectMeta().namespace(m.getNamespace()).name(m.getName())
                .resourceVersion(m.getResourceVersion()).labels(new HashMap<>(m.getLabels())));
    }

    private static SharedIndexInformer<V1Pod> informer(InformerSpec<V1Pod> spec, FakePodServer server) {
        return informer(spec, server, true);
    }

    private static SharedIndexInformer<V1Pod> informer(InformerSpec<V1Pod> spec, FakePodServer server,
                                                       boolean streamingList) {
        return SharedIndexInformer.builder(spec, new Decoding(server))
                .reflectorOptions(ReflectorOptions.defaults().withStreamingList(streamingList)
                        .withBackoff(Backoff.defaults().withInitial(Duration.ofMillis(10))))
                .scheduler(Schedulers.parallel()).build();
    }

    /** a and b unchanged, c changed, d deleted, e added, all missed by the watch; then a 410 forces the relist. */
    private static void changeSilentlyAndBreakTheWatch(FakePodServer server) {
        server.put("ns", "c", "new", true);
        server.delete("ns/d", true);
        server.put("ns", "e", "new", true);
        server.breakWatches();
    }

    private static FakePodServer serverWithFourPods() {
        FakePodServer server = new FakePodServer();
        for (String name : List.of("a", "b", "c", "d")) {
            server.put("ns", name, "old");
        }
        return server;
    }

    @ParameterizedTest(name = "streaming list {0}")
    @ValueSource(booleans = {true, false})
    void aRelistKeepsTheCachedInstanceOfUnchangedObjectsAndTakesTheRestFromTheList(boolean streamingList) {
        FakePodServer server = serverWithFourPods();
        SharedIndexInformer<V1Pod> informer = informer(InformerSpec.of(V1Pod.class), server, streamingList);
        Disposable stop = informer.start();
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(WAIT);
        Map<String, V1Pod> before = cached(informer);

        changeSilentlyAndBreakTheWatch(server);
        informer.storeReached(server.currentResourceVersion()).block(WAIT);

        Map<String, V1Pod> after = cached(informer);
        assertThat(after.keySet()).containsExactlyInAnyOrder("ns/a", "ns/b", "ns/c", "ns/e");
        assertThat(after.get("ns/a")).isSameAs(before.get("ns/a"));
        assertThat(after.get("ns/b")).isSameAs(before.get("ns/b"));
        assertThat(after.get("ns/c")).isNotSameAs(before.get("ns/c"));
        assertThat(FakePodServer.valueOf(after.get("ns/c"))).isEqualTo("new");
        assertThat(after.get("ns/c").getMetadata().getResourceVersion())
                .isEqualTo(server.snapshot().get("ns/c").getMetadata().getResourceVersion());
        assertThat(Recorder.values(after)).isEqualTo(Recorder.values(server.snapshot()));
        stop.dispose();
    }

    @Test
    void handlersAreToldWhatTheyWereToldWithoutReuse() throws InterruptedException {
        FakePodServer server = serverWithFourPods();
        SharedIndexInformer<V1Pod> informer = informer(InformerSpec.of(V1Pod.class), server);
        Recorder recorder = new Recorder();
        HandlerRegistration<V1Pod> handler = informer.register(SubscriberOptions.defaults().unbounded());
        handler.notifications().subscribe(recorder);
        Disposable stop = informer.start();
        StepVerifier.create(handler.hasSynced()).expectComplete().verify(WAIT);
        int synced = recorder.count();

        changeSilentlyAndBreakTheWatch(server);
        // the unchanged a and b are resyncs, which go to no handler without a resync period (as before)
        assertThat(recorder.awaitCount(synced + 3)).isTrue();
        informer.storeReached(server.currentResourceVersion()).block(WAIT);

        List<Notification<V1Pod>> relist = recorder.received().subList(synced, recorder.count());
        assertThat(relist).hasSize(3);
        assertThat(relist.get(0)).isInstanceOfSatisfying(Notification.Deleted.class, d -> {
            assertThat(d.key()).isEqualTo("ns/d");
            assertThat(d.finalStateUnknown()).isTrue();
        });
        assertThat(relist.get(1)).isInstanceOfSatisfying(Notification.Updated.class, u -> {
            assertThat(u.key()).isEqualTo("ns/c");
            assertThat(u.isResync()).isFalse();
            assertThat(FakePodServer.valueOf((V1Pod) u.oldObject())).isEqualTo("old");
            assertThat(FakePodServer.valueOf((V1Pod) u.newObject())).isEqualTo("new");
        });
        assertThat(relist.get(2)).isInstanceOfSatisfying(Notification.Added.class, a -> {
            assertThat(a.key()).isEqualTo("ns/e");
            assertThat(a.inInitialList()).isFalse();
        });
        stop.dispose();
    }

    @Test
    void theApplierTellsAReusedObjectAsTheResyncItWasAsACopy() {
        List<String> reused = notificationsOfARelist(true);
        assertThat(reused).isEqualTo(notificationsOfARelist(false));
        assertThat(reused).containsExactly("Deleted ns/d unknown", "Updated ns/a resync", "Updated ns/b resync",
                "Updated ns/c", "Added ns/e");
    }

    /** The notifications of a relist applied to a cache of a, b, c, d: each as its type, key and flags. */
    private static List<String> notificationsOfARelist(boolean reuse) {
        ConcurrentIndexer<V1Pod> indexer = new ConcurrentIndexer<>();
        Map<String, V1Pod> cached = new LinkedHashMap<>();
        for (String name : List.of("a", "b", "c", "d")) {
            V1Pod pod = FakePodServer.pod("ns", name, "old", 1);
            indexer.put(pod);
            cached.put("ns/" + name, pod);
        }
        Map<String, V1Pod> listed = new LinkedHashMap<>();
        for (String name : List.of("a", "b")) {
            listed.put("ns/" + name, reuse ? cached.get("ns/" + name) : copy(cached.get("ns/" + name)));
        }
        listed.put("ns/c", FakePodServer.pod("ns", "c", "new", 2));
        listed.put("ns/e", FakePodServer.pod("ns", "e", "new", 3));
        List<Notification<V1Pod>> notifications = new DeltaApplier<>(indexer)
                .apply(new FifoEntry.Replace<>(listed, "3", false, 1));
        return notifications.stream().map(n -> {
            if (n instanceof Notification.Added<V1Pod> a) {
                return "Added " + a.key() + (a.inInitialList() ? " initial" : "");
            }
            if (n instanceof Notification.Updated<V1Pod> u) {
                assertThat(u.oldObject() == u.newObject()).isEqualTo(reuse && u.isResync());
                return "Updated " + u.key() + (u.isResync() ? " resync" : "");
            }
            Notification.Deleted<V1Pod> d = (Notification.Deleted<V1Pod>) n;
            return "Deleted " + d.key() + (d.finalStateUnknown() ? " unknown" : "");
        }).toList();
    }

    @Test
    void theTransformRunsOncePerObjectStateAndNeverAgainOnAReusedInstance() {
        FakePodServer server = serverWithFourPods();
        Map<String, AtomicInteger> transformed = new ConcurrentHashMap<>();
        // not idempotent: a second run on the same instance would show as "old++"
        UnaryOperator<V1Pod> mark = pod -> {
            transformed.computeIfAbsent(pod.getMetadata().getName(), k -> new AtomicInteger()).incrementAndGet();
            pod.getMetadata().setLabels(Map.of("v", FakePodServer.valueOf(pod) + "+"));
            return pod;
        };
        SharedIndexInformer<V1Pod> informer = informer(InformerSpec.of(V1Pod.class).withTransform(mark), server);
        Disposable stop = informer.start();
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(WAIT);
        assertThat(transformed).containsOnlyKeys("a", "b", "c", "d")
                .allSatisfy((name, count) -> assertThat(count).hasValue(1));

        changeSilentlyAndBreakTheWatch(server);
        informer.storeReached(server.currentResourceVersion()).block(WAIT);

        assertThat(transformed.get("a")).hasValue(1);
        assertThat(transformed.get("b")).hasValue(1);
        assertThat(transformed.get("c")).hasValue(2);
        assertThat(transformed.get("e")).hasValue(1);
        Map<String, String> values = new HashMap<>();
        cached(informer).forEach((key, pod) -> values.put(key, FakePodServer.valueOf(pod)));
        assertThat(values).containsExactlyInAnyOrderEntriesOf(
                Map.of("ns/a", "old+", "ns/b", "old+", "ns/c", "new+", "ns/e", "new+"));
        stop.dispose();
    }

    private static Map<String, V1Pod> cached(SharedIndexInformer<V1Pod> informer) {
        Map<String, V1Pod> byKey = new HashMap<>();
        informer.indexer().list().forEach(pod -> byKey.put(pod.getMetadata().getNamespace() + "/"
                + pod.getMetadata().getName(), pod));
        return byKey;
    }
}
