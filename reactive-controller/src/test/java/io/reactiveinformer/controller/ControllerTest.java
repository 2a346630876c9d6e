package io.reactiveinformer.controller;

import static io.reactiveinformer.controller.TestObjects.controlledBy;
import static io.reactiveinformer.controller.TestObjects.ownedBy;
import static io.reactiveinformer.controller.TestObjects.pod;
import static io.reactiveinformer.controller.TestObjects.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.informer.ListerWatcherSource;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.workqueue.MicrometerWorkQueueMetrics;
import io.reactiveinformer.workqueue.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ControllerTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakeApiServer<V1ReplicaSet> replicaSets = new FakeApiServer<>(m -> new V1ReplicaSet().metadata(m));
    private final FakeApiServer<V1Pod> pods = new FakeApiServer<>(m -> new V1Pod().metadata(m));
    private final SharedIndexInformer<V1ReplicaSet> replicaSetInformer =
            SharedIndexInformer.builder(V1ReplicaSet.class, replicaSets).name("replicasets").scheduler(time).build();
    private final SharedIndexInformer<V1Pod> podInformer =
            SharedIndexInformer.builder(V1Pod.class, pods).name("pods").scheduler(time).build();
    private final Reconciles reconciles = new Reconciles(time);
    private final List<Disposable> toStop = new ArrayList<>();

    private Controller.Builder<V1ReplicaSet> builder() {
        return Controller.builder(replicaSetInformer).name("rs").scheduler(time).reconciler(reconciles);
    }

    private Controller start(Controller controller) {
        toStop.add(controller.start());
        return controller;
    }

    @AfterEach
    void stop() {
        toStop.forEach(Disposable::dispose);
        for (SharedIndexInformer<?> informer : List.of(replicaSetInformer, podInformer)) {
            if (informer.isStarted()) {
                informer.start().dispose();
            }
        }
    }

    @Test
    void reconcilesOnAddUpdateAndDeleteOfThePrimaryReadingTheCache() {
        replicaSets.put(replicaSet("a", "r1", 1));
        List<Boolean> cached = new ArrayList<>();
        reconciles.behaviour = r -> {
            cached.add(replicaSetInformer.indexer().getByKey(r.key()).isPresent());
            return Mono.just(Result.done());
        };
        Controller controller = start(builder().build());
        StepVerifier.create(controller.hasSynced()).verifyComplete();
        assertThat(reconciles.keys()).containsExactly("a/r1");

        replicaSets.put(replicaSet("a", "r1", 2));
        replicaSets.put(replicaSet("b", "r2", 1));
        replicaSets.delete(replicaSet("a", "r1", 2));

        assertThat(reconciles.keys()).containsExactly("a/r1", "a/r1", "b/r2", "a/r1");
        assertThat(cached).containsExactly(true, true, true, false);
    }

    @Test
    void anOwnedObjectMapsToItsControllingOwner() {
        replicaSets.put(replicaSet("a", "r1", 1));
        pods.put(pod("a", "p1", controlledBy("r1")));
        pods.put(pod("a", "p2", ownedBy("apps/v1", "ReplicaSet", "r2")));
        Controller controller = start(builder()
                .owns(podInformer, KeyMapper.controllerOwner("apps/v1", "ReplicaSet"))
                .build());
        StepVerifier.create(controller.hasSynced()).verifyComplete();
        assertThat(reconciles.keys()).as("the replica set and its pod collapse into one request").containsExactly("a/r1");

        pods.put(pod("a", "p1", controlledBy("r1")));
        assertThat(reconciles.keys()).containsExactly("a/r1", "a/r1");

        pods.put(pod("a", "p2", ownedBy("apps/v1", "ReplicaSet", "r2")));
        assertThat(reconciles.keys()).as("not the controller").hasSize(2);

        pods.put(pod("a", "p1", controlledBy("r3")));
        assertThat(reconciles.keys()).as("old and new owner").containsExactly("a/r1", "a/r1", "a/r1", "a/r3");

        pods.delete(pod("a", "p1", controlledBy("r3")));
        assertThat(reconciles.keys()).last().isEqualTo("a/r3");
        assertThat(reconciles.keys()).hasSize(5);
    }

    @Test
    void requeueAfterReconcilesAgainAtExactlyThatVirtualTime() {
        replicaSets.put(replicaSet("a", "r1", 1));
        AtomicInteger n = new AtomicInteger();
        reconciles.behaviour = r -> Mono.just(n.getAndIncrement() == 0 ? Result.requeueAfter(Duration.ofSeconds(30))
                : Result.done());
        start(builder().build());
        assertThat(reconciles.times()).containsExactly(0L);

        time.advanceTimeBy(Duration.ofSeconds(30).minusMillis(1));
        assertThat(reconciles.times()).containsExactly(0L);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(reconciles.times()).containsExactly(0L, 30_000L);

        time.advanceTimeBy(Duration.ofMinutes(3));
        assertThat(reconciles.times()).hasSize(2);
    }

    @Test
    void errorsRequeueWithExponentialDelaysAndSuccessForgets() {
        replicaSets.put(replicaSet("a", "r1", 1));
        AtomicInteger n = new AtomicInteger();
        Set<Integer> failing = Set.of(0, 1, 2, 4);
        reconciles.behaviour = r -> failing.contains(n.getAndIncrement())
                ? Mono.error(new IllegalStateException("conflict")) : Mono.just(Result.done());
        start(builder().rateLimiter(RateLimiter.exponential(Duration.ofMillis(10), Duration.ofSeconds(100))).build());

        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(reconciles.times()).containsExactly(0L, 10L, 30L, 70L);

        replicaSets.put(replicaSet("a", "r1", 2));
        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(reconciles.times()).as("forgotten after the success: back to the base delay")
                .containsExactly(0L, 10L, 30L, 70L, 1000L, 1010L);
    }

    @Test
    void requeueKeepsTheFailureHistory() {
        replicaSets.put(replicaSet("a", "r1", 1));
        AtomicInteger n = new AtomicInteger();
        reconciles.behaviour = r -> Mono.just(n.getAndIncrement() < 2 ? Result.requeue() : Result.done());
        start(builder().rateLimiter(RateLimiter.exponential(Duration.ofMillis(10), Duration.ofSeconds(100))).build());
        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(reconciles.times()).containsExactly(0L, 10L, 30L);
    }

    @Test
    void changesDuringAReconcileCauseExactlyOneMoreReconcile() {
        replicaSets.put(replicaSet("a", "r1", 1));
        reconciles.controlled();
        start(builder().maxConcurrentReconciles(4).build());
        assertThat(reconciles.keys()).containsExactly("a/r1");

        for (int g = 2; g <= 6; g++) {
            replicaSets.put(replicaSet("a", "r1", g));
        }
        assertThat(reconciles.keys()).as("never twice at once").containsExactly("a/r1");

        reconciles.finish("a/r1", Result.done());
        assertThat(reconciles.keys()).containsExactly("a/r1", "a/r1");
        reconciles.finish("a/r1", Result.done());
        time.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(reconciles.keys()).hasSize(2);
        assertThat(reconciles.overlaps).hasValue(0);
    }

    @Test
    void atMostMaxConcurrentReconcilesRun() {
        for (int i = 1; i <= 5; i++) {
            replicaSets.put(replicaSet("a", "r" + i, 1));
        }
        reconciles.controlled();
        start(builder().maxConcurrentReconciles(2).build());
        assertThat(reconciles.keys()).containsExactly("a/r1", "a/r2");

        reconciles.finish("a/r1", Result.done());
        assertThat(reconciles.keys()).containsExactly("a/r1", "a/r2", "a/r3");
        reconciles.finish("a/r2", Result.done());
        reconciles.fail("a/r3");
        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(reconciles.active()).isEqualTo(2);
        reconciles.finish("a/r4", Result.done());
        reconciles.finish("a/r5", Result.done());
        reconciles.finish("a/r3", Result.done());

        assertThat(reconciles.keys()).containsExactly("a/r1", "a/r2", "a/r3", "a/r4", "a/r5", "a/r3");
        assertThat(reconciles.maxActive).hasValue(2);
    }

    @Test
    void initialListEntersAtLowPrioritySoALiveChangeOvertakesIt() {
        for (int i = 1; i <= 3; i++) {
            replicaSets.put(replicaSet("a", "r" + i, 1));
        }
        reconciles.controlled();
        start(builder().build());
        assertThat(reconciles.keys()).containsExactly("a/r1");

        replicaSets.put(replicaSet("a", "r4", 1));
        replicaSets.put(replicaSet("a", "r3", 2));
        for (String key : List.of("a/r1", "a/r4", "a/r3", "a/r2")) {
            reconciles.finish(key, Result.done());
        }
        assertThat(reconciles.keys()).containsExactly("a/r1", "a/r4", "a/r3", "a/r2");
    }

    @Test
    void nothingIsReconciledBeforeEveryInformerSynced() {
        replicaSets.put(replicaSet("a", "r1", 1));
        pods.failNextLists(1, KubernetesApiException.of("GET /api/v1/pods", 503, null, null));
        Controller controller = start(builder()
                .owns(podInformer, KeyMapper.controllerOwner("apps/v1", "ReplicaSet"))
                .build());
        replicaSets.put(replicaSet("a", "r2", 1));
        assertThat(replicaSetInformer.isSynced()).isTrue();
        assertThat(podInformer.isSynced()).isFalse();
        assertThat(reconciles.calls).isEmpty();
        StepVerifier.create(controller.hasSynced()).expectSubscription().expectNoEvent(Duration.ZERO).thenCancel()
                .verify();

        time.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(podInformer.isSynced()).isTrue();
        StepVerifier.create(controller.hasSynced()).verifyComplete();
        assertThat(reconciles.keys()).as("the live add overtakes the initial list").containsExactly("a/r2", "a/r1");
    }

    @Test
    void gracefulShutdownWaitsForInFlightAndQueuedReconciles() {
        for (int i = 1; i <= 3; i++) {
            replicaSets.put(replicaSet("a", "r" + i, 1));
        }
        reconciles.controlled();
        Controller controller = start(builder().build());
        AtomicBoolean shutDown = new AtomicBoolean();
        controller.shutdown().subscribe(null, null, () -> shutDown.set(true));

        replicaSets.put(replicaSet("a", "r9", 1));
        reconciles.finish("a/r1", Result.done());
        assertThat(shutDown).isFalse();
        reconciles.finish("a/r2", Result.done());
        assertThat(shutDown).isFalse();
        reconciles.finish("a/r3", Result.requeueAfter(Duration.ofSeconds(1)));
        assertThat(shutDown).isTrue();

        time.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(reconciles.keys()).as("no new changes, no requeues after shutdown")
                .containsExactly("a/r1", "a/r2", "a/r3");
        StepVerifier.create(controller.shutdown()).verifyComplete();
        assertThat(controller.start().isDisposed()).isTrue();
    }

    @Test
    void shutdownBeforeSyncStopsAtOnce() {
        replicaSets.failNextLists(1, KubernetesApiException.of("GET /apis/apps/v1/replicasets", 503, null, null));
        replicaSets.put(replicaSet("a", "r1", 1));
        Controller controller = start(builder().build());
        StepVerifier.create(controller.shutdown()).verifyComplete();
        StepVerifier.create(controller.hasSynced()).verifyError(CancellationException.class);
        time.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(reconciles.calls).isEmpty();
    }

    @Test
    void disposingStopsAtOnceAndCancelsRunningReconciles() {
        replicaSets.put(replicaSet("a", "r1", 1));
        replicaSets.put(replicaSet("a", "r2", 1));
        reconciles.controlled();
        Controller controller = builder().build();
        Disposable running = controller.start();
        assertThat(controller.start()).isSameAs(running);
        running.dispose();

        assertThat(running.isDisposed()).isTrue();
        assertThat(reconciles.cancelled).hasValue(1);
        replicaSets.put(replicaSet("a", "r3", 1));
        assertThat(reconciles.keys()).containsExactly("a/r1");
        StepVerifier.create(controller.shutdown()).verifyComplete();
    }

    @Test
    void predicatesFilterUpdatesOfThePrimary() {
        replicaSets.put(replicaSet("a", "r1", 1));
        start(builder().withPredicates(EventPredicate.generationChanged()).build());
        assertThat(reconciles.keys()).as("adds pass").hasSize(1);

        replicaSets.put(replicaSet("a", "r1", 1, Map.of("x", "y")));
        assertThat(reconciles.keys()).as("same generation").hasSize(1);
        replicaSets.put(replicaSet("a", "r1", 2, Map.of("x", "y")));
        assertThat(reconciles.keys()).hasSize(2);
        replicaSets.delete(replicaSet("a", "r1", 2));
        assertThat(reconciles.keys()).as("deletes pass").hasSize(3);
    }

    @Test
    void predicatesOfAnOwnedKindFilterItsNotifications() {
        replicaSets.put(replicaSet("a", "r1", 1));
        start(builder()
                .owns(podInformer, KeyMapper.controllerOwner("apps/v1", "ReplicaSet"), EventPredicate.labelsChanged())
                .build());
        pods.put(pod("a", "p1", controlledBy("r1")));
        assertThat(reconciles.keys()).hasSize(2);
        pods.put(pod("a", "p1", controlledBy("r1")));
        assertThat(reconciles.keys()).as("labels unchanged").hasSize(2);
    }

    @Test
    void theQueueReportsMetricsUnderTheControllersName() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        replicaSets.put(replicaSet("a", "r1", 1));
        replicaSets.put(replicaSet("a", "r2", 1));
        Controller controller = start(builder().name("rs-controller")
                .metrics(MicrometerWorkQueueMetrics.provider(registry)).build());
        assertThat(controller.name()).isEqualTo("rs-controller");
        assertThat(registry.get("workqueue.adds").tag("name", "rs-controller").counter().count()).isEqualTo(2.0);
    }

    @Test
    void aFactoryControllerStartsTheFactory() {
        replicaSets.put(replicaSet("a", "r1", 1));
        SharedInformerFactory factory = SharedInformerFactory.builder(new ListerWatcherSource() {
            @Override
            @SuppressWarnings("unchecked")
            public <T extends KubernetesObject> ListerWatcher<T> listerWatcher(Class<T> type, String namespace,
                                                                               String labelSelector, String fieldSelector) {
                return (ListerWatcher<T>) replicaSets;
            }
        }).scheduler(time).build();
        Controller controller = start(Controller.builder(factory, V1ReplicaSet.class).scheduler(time)
                .reconciler(reconciles).build());
        StepVerifier.create(controller.hasSynced()).verifyComplete();
        assertThat(reconciles.keys()).containsExactly("a/r1");
        StepVerifier.create(factory.shutdown()).verifyComplete();
    }
}
