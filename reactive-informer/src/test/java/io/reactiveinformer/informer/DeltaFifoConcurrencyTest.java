package io.reactiveinformer.informer;

import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.cache.ConcurrentIndexer;
import io.reactiveinformer.cache.Indexer;
import io.reactiveinformer.cache.ObjectKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Several producers push concurrently (each owning its keys, so the final state is known), a
 * resync races them, and the drain loop applies entries on a scheduler thread meanwhile, as the informer
 * wires it.
 */
class DeltaFifoConcurrencyTest {

    private static final int PRODUCERS = 4;
    private static final int KEYS_PER_PRODUCER = 100;
    private static final int UPDATES_PER_KEY = 20;

    /** Beyond every version the producers push, so the store reaches it only once all is applied. */
    private static final String LAST = "999999";

    private final ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS + 1);
    private final Scheduler drainScheduler = Schedulers.newParallel("fifo-drain", 2);

    @AfterEach
    void shutDown() {
        producers.shutdownNow();
        drainScheduler.dispose();
    }

    @RepeatedTest(5)
    void nothingIsLostAndTheCacheEndsInTheLastPushedState() throws Exception {
        ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
        DeltaApplier<V1Pod> applier = new DeltaApplier<>(cache);
        Map<String, V1Pod> expected = new ConcurrentHashMap<>();
        DeltaFifo<V1Pod> fifo = new DeltaFifo<>(cache, UnaryOperator.identity(), drainScheduler,
                e -> { throw e; }, () -> { });
        // confined to the drain loop, read once the store version says it has applied everything
        List<Notification<V1Pod>> notifications = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        fifo.start(new DeltaFifo.EntryConsumer<>() {
            @Override
            public void accept(FifoEntry<V1Pod> entry) {
                notifications.addAll(applier.apply(entry));
            }

            @Override
            public void failed(Throwable cause) {
                failures.add(cause);
            }
        });

        CyclicBarrier start = new CyclicBarrier(PRODUCERS + 1);
        List<CompletableFuture<Void>> work = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            String namespace = "ns" + p;
            work.add(CompletableFuture.runAsync(() -> produce(fifo, namespace, start, expected), producers));
        }
        work.add(CompletableFuture.runAsync(() -> {
            await(start);
            for (int i = 0; i < 200; i++) {
                fifo.resync();
            }
        }, producers));
        CompletableFuture.allOf(work.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        fifo.bookmark(LAST);
        fifo.storeVersion().reached(LAST).toFuture().get(60, TimeUnit.SECONDS);

        assertThat(failures).isEmpty();

        Map<String, V1Pod> cached = new HashMap<>();
        cache.list().forEach(pod -> cached.put(ObjectKeys.keyOf(pod), pod));
        assertThat(cached).isEqualTo(expected);
        assertThat(replay(notifications)).isEqualTo(expected);
        assertThat(cache.indexValues(Indexer.NAMESPACE_INDEX)).hasSizeLessThanOrEqualTo(PRODUCERS);
    }

    private static void produce(DeltaFifo<V1Pod> fifo, String namespace, CyclicBarrier start, Map<String, V1Pod> expected) {
        await(start);
        for (int k = 0; k < KEYS_PER_PRODUCER; k++) {
            fifo.add(pod(namespace, "p" + k, "0"));
        }
        for (int u = 1; u <= UPDATES_PER_KEY; u++) {
            for (int k = 0; k < KEYS_PER_PRODUCER; k++) {
                fifo.update(pod(namespace, "p" + k, String.valueOf(u)));
            }
        }
        for (int k = 0; k < KEYS_PER_PRODUCER; k++) {
            String name = "p" + k;
            if (k % 3 == 0) {
                fifo.delete(pod(namespace, name, "final"));
            } else {
                expected.put(namespace + "/" + name, pod(namespace, name, String.valueOf(UPDATES_PER_KEY)));
            }
        }
    }

    /** Handlers' view: replaying notifications must never add twice, update or delete the unknown. */
    static Map<String, V1Pod> replay(List<Notification<V1Pod>> notifications) {
        Map<String, V1Pod> state = new HashMap<>();
        for (Notification<V1Pod> notification : notifications) {
            if (notification instanceof Notification.Added<V1Pod> added) {
                assertThat(state).as("added twice: %s", added).doesNotContainKey(added.key());
                state.put(added.key(), added.object());
            } else if (notification instanceof Notification.Updated<V1Pod> updated) {
                assertThat(state.get(updated.key())).as("update of what handlers saw: %s", updated).isSameAs(updated.oldObject());
                state.put(updated.key(), updated.newObject());
            } else {
                assertThat(state).as("deleted unknown: %s", notification).containsKey(notification.key());
                state.remove(notification.key());
            }
        }
        return state;
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
