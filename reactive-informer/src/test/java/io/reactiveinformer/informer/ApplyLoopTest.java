package io.reactiveinformer.informer;

import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.cache.ConcurrentIndexer;
import io.reactiveinformer.cache.IndexFunction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** An entry that fails to apply stops the informer with that cause, instead of leaving it never synced. */
class ApplyLoopTest {

    private final InformerState state = new InformerState("pods", Schedulers.immediate(), Schedulers.immediate(), 3);

    @Test
    void aFailedInitialListStopsTheInformerWithTheCauseAndFailsHasSynced() {
        IllegalStateException bug = new IllegalStateException("index bug");
        IndexFunction<V1Pod> failing = pod -> {
            throw bug;
        };
        // a listener that rethrows stands for any failure inside the apply step
        ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>(Map.of("failing", failing), (index, key, e) -> {
            throw e;
        });
        SharedProcessor<V1Pod> processor = new SharedProcessor<>(cache::list, state::isSynced, System::nanoTime, () -> { });
        ResyncSchedule<V1Pod> resync = new ResyncSchedule<>("pods", Schedulers.immediate(), Duration.ZERO);
        ApplyLoop<V1Pod> applyLoop = new ApplyLoop<>("pods", cache, new DeltaApplier<>(cache), processor, resync, state,
                new AppliedSelection(), state::stop);
        // the production wiring, its drain loop on the pushing thread
        DeltaFifo<V1Pod> fifo = new DeltaFifo<>(cache, UnaryOperator.identity(), Schedulers.immediate(), e -> { }, () -> { });
        state.start();
        fifo.start(applyLoop);

        fifo.replace(List.of(pod("ns", "a", "1")), "1", 1);
        fifo.add(pod("ns", "b", "2"));

        assertThat(cache.containsKey("ns/b")).as("nothing applied after the failed entry").isFalse();
        assertThat(state.isStopped()).isTrue();
        assertThat(state.health().stopCause()).isSameAs(bug);
        StepVerifier.create(state.hasSynced())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(InformerSyncException.class).hasCause(bug))
                .verify(Duration.ofSeconds(5));
    }
}
