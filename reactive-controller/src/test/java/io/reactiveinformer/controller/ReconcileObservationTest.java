package io.reactiveinformer.controller;

import static io.reactiveinformer.controller.TestObjects.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.ObservationContextAssert;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Each reconcile is an Observation, the parent of what the reconciler observes, with its controller, result and key. */
class ReconcileObservationTest {

    private final FakeApiServer<V1ReplicaSet> replicaSets = new FakeApiServer<>(m -> new V1ReplicaSet().metadata(m));
    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final List<Disposable> toStop = new ArrayList<>(List.of(time));
    private final TestObservationRegistry registry = TestObservationRegistry.create();

    @AfterEach
    void stop() {
        for (int i = toStop.size() - 1; i >= 0; i--) {
            toStop.get(i).dispose();
        }
    }

    @Test
    void eachReconcileIsAnObservationWithItsResultAndTheReconcilersParent() {
        SharedIndexInformer<V1ReplicaSet> informer =
                SharedIndexInformer.builder(V1ReplicaSet.class, replicaSets).scheduler(time).build();
        for (String name : List.of("ok", "again", "later", "fails", "hangs")) {
            replicaSets.put(replicaSet("a", name, 1));
        }
        Map<String, Observation> seen = new ConcurrentHashMap<>();
        Reconciles reconciles = new Reconciles(time);
        reconciles.behaviour = r -> Mono.deferContextual(context -> {
            seen.putIfAbsent(r.name(), context.get(ObservationThreadLocalAccessor.KEY));
            return switch (r.name()) {
                case "again" -> Mono.just(Result.requeue());
                case "later" -> Mono.just(Result.requeueAfter(Duration.ofHours(1)));
                case "fails" -> Mono.error(new IllegalStateException("boom"));
                case "hangs" -> Mono.never();
                default -> Mono.just(Result.done());
            };
        });
        toStop.add(Controller.builder(informer).name("rs").scheduler(time).observationRegistry(registry)
                .reconcileTimeout(Duration.ofSeconds(5)).maxConcurrentReconciles(5).reconciler(reconciles).build()
                .start());
        toStop.add(() -> informer.start().dispose());

        time.advanceTimeBy(Duration.ofSeconds(5));

        assertThat(reconciles.keys()).startsWith("a/ok", "a/again", "a/later", "a/fails", "a/hangs");
        TestObservationRegistryAssert.assertThat(registry)
                .hasAnObservation(o -> o.hasNameEqualTo(ReconcileObservations.NAME)
                        .hasContextualNameEqualTo("reconcile rs")
                        .hasLowCardinalityKeyValue("controller", "rs")
                        .hasLowCardinalityKeyValue("result", "success")
                        .hasHighCardinalityKeyValue("key", "a/ok"))
                .hasAnObservation(o -> o.hasLowCardinalityKeyValue("result", "requeue")
                        .hasHighCardinalityKeyValue("key", "a/again"))
                .hasAnObservation(o -> o.hasLowCardinalityKeyValue("result", "requeue_after")
                        .hasHighCardinalityKeyValue("key", "a/later"))
                .hasAnObservation(o -> o.hasLowCardinalityKeyValue("result", "error")
                        .hasHighCardinalityKeyValue("key", "a/fails")
                        .assertThatError().isInstanceOf(IllegalStateException.class))
                .hasAnObservation(o -> o.hasLowCardinalityKeyValue("result", "timeout")
                        .hasHighCardinalityKeyValue("key", "a/hangs"))
                .hasHandledContextsThatSatisfy(contexts -> assertThat(contexts).allSatisfy(c ->
                        assertThat(c.getName()).isEqualTo(ReconcileObservations.NAME)));

        Observation ok = seen.get("ok");
        ObservationContextAssert.assertThat(ok.getContext()).as("the reconciler's context holds its observation")
                .hasNameEqualTo(ReconcileObservations.NAME).hasHighCardinalityKeyValue("key", "a/ok");
        assertThat(seen.get("fails")).isNotSameAs(ok);
    }

    @Test
    void aReconcileCancelledByStoppingIsStoppedAsCancelled() {
        SharedIndexInformer<V1ReplicaSet> informer =
                SharedIndexInformer.builder(V1ReplicaSet.class, replicaSets).scheduler(time).build();
        replicaSets.put(replicaSet("a", "hangs", 1));
        Reconciles reconciles = new Reconciles(time);
        reconciles.behaviour = r -> Mono.never();
        Disposable controller = Controller.builder(informer).name("rs").scheduler(time).observationRegistry(registry)
                .reconciler(reconciles).build().start();
        toStop.add(() -> informer.start().dispose());
        time.advanceTimeBy(Duration.ofSeconds(1));

        controller.dispose();

        TestObservationRegistryAssert.assertThat(registry).hasSingleObservationThat()
                .hasLowCardinalityKeyValue("result", "cancelled").hasBeenStopped();
    }
}
