package io.reactiveinformer.controller;

import static io.reactiveinformer.controller.TestObjects.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** Real threads: many producers, several workers, reconciles that take a while. */
class ControllerConcurrencyTest {

    private static final int KEYS = 8;
    private static final int GENERATIONS = 100;

    @Test
    void aRequestIsNeverReconciledConcurrentlyWhileManyUpdatesArrive() throws Exception {
        Scheduler scheduler = Schedulers.newParallel("controller-test", 4);
        FakeApiServer<V1ReplicaSet> server = new FakeApiServer<>(m -> new V1ReplicaSet().metadata(m));
        SharedIndexInformer<V1ReplicaSet> informer =
                SharedIndexInformer.builder(V1ReplicaSet.class, server).scheduler(scheduler).build();
        Reconciles reconciles = new Reconciles(scheduler);
        Map<String, Long> lastSeen = new ConcurrentHashMap<>();
        CountDownLatch allFinalSeen = new CountDownLatch(KEYS);
        reconciles.behaviour = r -> Mono.delay(Duration.ofMillis(1), scheduler).then(Mono.fromCallable(() -> {
            long generation = informer.indexer().getByKey(r.key()).orElseThrow().getMetadata().getGeneration();
            Long before = lastSeen.put(r.key(), generation);
            if (generation == GENERATIONS && (before == null || before != GENERATIONS)) {
                allFinalSeen.countDown();
            }
            return Result.done();
        }));
        Controller controller = Controller.builder(informer).scheduler(scheduler).maxConcurrentReconciles(4)
                .reconciler(reconciles).build();
        Disposable running = controller.start();
        try {
            Thread[] producers = new Thread[2];
            for (int p = 0; p < producers.length; p++) {
                int first = p * KEYS / producers.length;
                producers[p] = new Thread(() -> {
                    for (long g = 1; g <= GENERATIONS; g++) {
                        for (int k = first; k < first + KEYS / producers.length; k++) {
                            server.put(replicaSet("a", "r" + k, g));
                        }
                    }
                });
                producers[p].start();
            }
            for (Thread producer : producers) {
                producer.join();
            }
            assertThat(allFinalSeen.await(60, TimeUnit.SECONDS)).as("every request reconciled at its final state")
                    .isTrue();
            controller.shutdown().block(Duration.ofSeconds(60));

            assertThat(reconciles.overlaps).hasValue(0);
            assertThat(reconciles.maxActive.get()).isBetween(1, 4);
            assertThat(reconciles.calls.size()).as("changes collapse").isLessThanOrEqualTo(KEYS * GENERATIONS);
        } finally {
            running.dispose();
            informer.start().dispose();
            scheduler.dispose();
        }
    }
}
