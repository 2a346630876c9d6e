package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** A relist swaps the cache in one step, then tells deletions with the last state, then updates and adds. */
class AtomicRelistTest {

    @Test
    void relistYieldsDeletesWithLastStateAndUpdatesWhileReadersNeverSeeAMix() throws Exception {
        FakePodServer server = new FakePodServer();
        int n = 2000;
        for (int i = 0; i < n; i++) {
            server.put("ns", "p" + i, "old");
        }
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server)
                .reflectorOptions(ReflectorOptions.defaults().withBackoff(Backoff.defaults().withInitial(Duration.ofMillis(10))))
                .scheduler(Schedulers.parallel()).build();
        Recorder recorder = new Recorder();
        HandlerRegistration<V1Pod> handler = informer.register(SubscriberOptions.defaults().unbounded());
        handler.notifications().subscribe(recorder);
        Disposable stop = informer.start();
        StepVerifier.create(handler.hasSynced()).expectComplete().verify(Duration.ofSeconds(10));
        int before = recorder.count();

        // The watch misses: the first half vanishes, the second half changes, and one object is new.
        for (int i = 0; i < n; i++) {
            if (i < n / 2) {
                server.delete("ns/p" + i, true);
            } else {
                server.put("ns", "p" + i, "new", true);
            }
        }
        server.put("ns", "fresh", "new", true);

        AtomicBoolean reading = new AtomicBoolean(true);
        AtomicReference<String> violation = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            while (reading.get()) {
                List<V1Pod> all = informer.indexer().list();
                Set<String> values = new HashSet<>();
                all.forEach(p -> values.add(FakePodServer.valueOf(p)));
                boolean oldState = all.size() == n && values.equals(Set.of("old"));
                boolean newState = all.size() == n / 2 + 1 && values.equals(Set.of("new"));
                if (!oldState && !newState) {
                    violation.set("size " + all.size() + " values " + values);
                }
            }
        });
        reader.start();
        server.breakWatches();
        // The relist produced n/2 deletions, n/2 updates and one add.
        assertThat(recorder.awaitCount(before + n + 1)).isTrue();
        reading.set(false);
        reader.join();

        assertThat(violation.get()).isNull();
        assertThat(informerValues(informer).equals(Recorder.values(server.snapshot()))).isTrue();
        List<Notification<V1Pod>> relist = recorder.received().subList(before, recorder.count());
        assertThat(relist).hasSize(n + 1);
        List<Notification<V1Pod>> deletions = relist.subList(0, n / 2);
        assertThat(deletions).allSatisfy(d -> assertThat(d).isInstanceOfSatisfying(Notification.Deleted.class, del -> {
            assertThat(del.finalStateUnknown()).isTrue();
            assertThat(FakePodServer.valueOf((V1Pod) del.lastState())).isEqualTo("old");
        }));
        assertThat(relist.subList(n / 2, n)).allSatisfy(u -> assertThat(u).isInstanceOfSatisfying(
                Notification.Updated.class, up -> assertThat(FakePodServer.valueOf((V1Pod) up.newObject())).isEqualTo("new")));
        assertThat(relist.get(n)).isInstanceOfSatisfying(Notification.Added.class,
                a -> assertThat(a.key()).isEqualTo("ns/fresh"));
        assertThat(recorder.view().equals(Recorder.values(server.snapshot()))).isTrue();
        stop.dispose();
    }

    private static Map<String, String> informerValues(SharedIndexInformer<V1Pod> informer) {
        Map<String, V1Pod> byKey = new java.util.HashMap<>();
        informer.indexer().list().forEach(p -> byKey.put(io.reactiveinformer.cache.ObjectKeys.keyOf(p), p));
        return Recorder.values(byKey);
    }
}
