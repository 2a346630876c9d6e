package io.reactiveinformer.controller;

import static io.reactiveinformer.controller.TestObjects.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/** A reconcile that hangs is cancelled at the reconcile timeout and retried with backoff, freeing its slot. */
class ReconcileTimeoutTest {

    private final FakeApiServer<V1ReplicaSet> replicaSets = new FakeApiServer<>(m -> new V1ReplicaSet().metadata(m));
    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final List<Disposable> toStop = new ArrayList<>(List.of(time));

    @AfterEach
    void stop() {
        // last started, first stopped: the clock goes last, so nothing stops on a disposed scheduler
        for (int i = toStop.size() - 1; i >= 0; i--) {
            toStop.get(i).dispose();
        }
    }

    @Test
    void aHungReconcileIsCancelledCountedAndRetriedWithBackoffWhileOthersGetTheSlotInVirtualTime() {
        SharedIndexInformer<V1ReplicaSet> informer =
                SharedIndexInformer.builder(V1ReplicaSet.class, replicaSets).scheduler(time).build();
        replicaSets.put(replicaSet("a", "hangs", 1));
        replicaSets.put(replicaSet("a", "fine", 1));
        Reconciles reconciles = new Reconciles(time);
        reconciles.behaviour = r -> r.name().equals("hangs") ? Mono.never() : Mono.just(Result.done());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        toStop.add(Controller.builder(informer).name("rs").scheduler(time).meterRegistry(meters)
                .reconcileTimeout(Duration.ofSeconds(5)).reconciler(reconciles).build().start());
        toStop.add(() -> informer.start().dispose());

        time.advanceTimeBy(Duration.ofSeconds(16));

        // one slot: "fine" waits for the hung reconcile's timeout; "hangs" comes back after 5 ms, 10 ms, 20 ms
        assertThat(reconciles.keys()).containsExactly("a/hangs", "a/fine", "a/hangs", "a/hangs", "a/hangs");
        assertThat(reconciles.times()).containsExactly(0L, 5_000L, 5_005L, 10_015L, 15_035L);
        assertThat(reconciles.cancelled).as("each timed-out reconcile's Mono was cancelled").hasValue(3);
        assertThat(meters.get("controller_reconcile_timeouts_total").tag("name", "rs").functionCounter().count())
                .isEqualTo(3);
    }

    @Test
    void theTimeoutMustBePositive() {
        Controller.Builder<V1ReplicaSet> builder = Controller.builder(
                SharedIndexInformer.builder(V1ReplicaSet.class, replicaSets).build());
        assertThatThrownBy(() -> builder.reconcileTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.readYourWritesTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
