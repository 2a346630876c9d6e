package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.informer.BufferPolicy;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.InMemoryListerWatcher;
import io.reactiveinformer.test.server.ClusterState;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The stall guard's rule, in virtual time: a stream is ended when its consumer has had no demand for the timeout. */
class InformerSseStallGuardTest {

    private static final Duration T = Duration.ofSeconds(30);
    private static final Duration SECOND = Duration.ofSeconds(1);

    private final VirtualTimeScheduler clock = VirtualTimeScheduler.create();
    private SharedIndexInformer<V1ConfigMap> informer;
    private Disposable running;

    @BeforeEach
    void start() {
        informer = SharedIndexInformer.builder(V1ConfigMap.class,
                InMemoryListerWatcher.of(ClusterState.create(), ResourceType.of(V1ConfigMap.class), "ns")).build();
        running = informer.start();
        informer.hasSynced().block(T);
    }

    @AfterEach
    void stop() {
        running.dispose();
        clock.dispose();
    }

    @Test
    void aConsumerThatKeepsDemandIsNeverEndedEvenWhenTheHeartbeatEqualsTheTimeout() {
        InformerSse sse = new InformerSse(SECOND, SECOND, BufferPolicy.COALESCE, clock);
        StepVerifier.create(sse.stream(informer))
                .expectNextMatches(e -> "synced".equals(e.event()))
                .then(() -> clock.advanceTimeBy(Duration.ofSeconds(60)))
                .expectNextCount(60)  // a heartbeat each second, the stream open all along
                .then(() -> assertThat(informer.handlerCount()).isEqualTo(1))
                .thenCancel()
                .verify(T);
    }

    @Test
    void aConsumerWithoutDemandIsEndedAfterTheTimeoutAndItsSubscriberLeaves() {
        InformerSse sse = new InformerSse(Duration.ofMillis(250), SECOND, BufferPolicy.COALESCE, clock);
        AtomicBoolean ended = new AtomicBoolean();
        StepVerifier.create(sse.stream(informer).doOnComplete(() -> ended.set(true)), 1)
                .expectNextMatches(e -> "synced".equals(e.event()))
                .then(() -> clock.advanceTimeBy(Duration.ofMillis(750)))
                .then(() -> assertThat(ended).as("ended after 750 ms without demand").isFalse())
                .then(() -> clock.advanceTimeBy(Duration.ofMillis(250)))
                .expectComplete()
                .verify(T);
        StepVerifier.create(Convergence.until(() -> informer.handlerCount() == 0, T, Schedulers.parallel()))
                .expectComplete()
                .verify(T);
    }
}
