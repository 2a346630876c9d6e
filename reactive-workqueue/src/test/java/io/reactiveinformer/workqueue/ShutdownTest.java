package io.reactiveinformer.workqueue;

import static io.reactiveinformer.workqueue.Queues.tryGet;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.publisher.PublisherProbe;
import reactor.test.scheduler.VirtualTimeScheduler;

class ShutdownTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final WorkQueue<String> queue = Queues.virtual(time);

    @Test
    void addsAreIgnoredAfterShutDown() {
        queue.shutDown();
        queue.add("a");
        queue.addAfter("b", Duration.ofMillis(1));
        queue.addRateLimited("c");
        time.advanceTimeBy(Duration.ofSeconds(1));

        assertThat(queue.isShuttingDown()).isTrue();
        assertThat(queue.size()).isZero();
        assertThat(queue.numRequeues("c")).isZero();
    }

    @Test
    void queuedItemsAreStillHandedOutThenGetCompletesEmpty() {
        queue.add("a");
        queue.add("b");
        queue.shutDown();

        assertThat(tryGet(queue)).isEqualTo("a");
        assertThat(tryGet(queue)).isEqualTo("b");
        StepVerifier.create(queue.get()).verifyComplete();
    }

    @Test
    void aWaitingGetCompletesEmptyOnShutDown() {
        StepVerifier.create(queue.get())
                .expectSubscription()
                .then(queue::shutDown)
                .verifyComplete();
    }

    @Test
    void delayedItemsAreDroppedAndTheirTimerCancelled() {
        DelayingTest.CountingScheduler counting = new DelayingTest.CountingScheduler(time);
        WorkQueue<String> q = WorkQueue.<String>builder().scheduler(counting).build();
        q.addAfter("a", Duration.ofMillis(10));

        q.shutDown();
        time.advanceTimeBy(Duration.ofMillis(10));

        assertThat(counting.pending.get()).isZero();
        assertThat(q.size()).isZero();
        StepVerifier.create(q.get()).verifyComplete();
    }

    @Test
    void anItemReAddedDuringProcessingIsStillHandedOutAfterShutDown() {
        queue.add("a");
        assertThat(tryGet(queue)).isEqualTo("a");
        queue.add("a");
        queue.shutDown();

        // unlike client-go, a waiting consumer is not told "shut down" while done() can still queue an item
        StepVerifier.create(queue.get())
                .expectSubscription()
                .expectNoEvent(Duration.ZERO)
                .then(() -> queue.done("a"))
                .expectNext("a")
                .verifyComplete();
        queue.done("a");
        StepVerifier.create(queue.get()).verifyComplete();
    }

    @Test
    void shutDownWithDrainIsLazy() {
        Mono<Void> drain = queue.shutDownWithDrain();

        assertThat(queue.isShuttingDown()).isFalse();
        StepVerifier.create(drain).verifyComplete();
        assertThat(queue.isShuttingDown()).isTrue();
    }

    @Test
    void shutDownWithDrainWaitsForInFlightItems() {
        queue.add("a");
        assertThat(tryGet(queue)).isEqualTo("a");

        StepVerifier.create(queue.shutDownWithDrain())
                .expectSubscription()
                .expectNoEvent(Duration.ZERO)
                .then(() -> queue.done("a"))
                .verifyComplete();
    }

    @Test
    void shutDownWithDrainWaitsForQueuedItemsNotYetStarted() {
        queue.add("a");
        queue.add("b");
        assertThat(tryGet(queue)).isEqualTo("a");

        AtomicBoolean drained = new AtomicBoolean();
        queue.shutDownWithDrain().subscribe(null, null, () -> drained.set(true));

        queue.done("a");
        assertThat(drained).as("b is queued, not started").isFalse();
        assertThat(tryGet(queue)).isEqualTo("b");
        assertThat(drained).as("b is in flight").isFalse();
        queue.done("b");
        assertThat(drained).isTrue();
    }

    @Test
    void shutDownWithDrainWaitsForItemsReAddedDuringProcessing() {
        queue.add("a");
        assertThat(tryGet(queue)).isEqualTo("a");
        queue.add("a");

        AtomicBoolean drained = new AtomicBoolean();
        queue.shutDownWithDrain().subscribe(null, null, () -> drained.set(true));
        queue.done("a");
        assertThat(drained).isFalse();
        queue.done(tryGet(queue));
        assertThat(drained).isTrue();
    }

    @Test
    void shutDownWithDrainLetsProcessFinishEverything() {
        Sinks.One<Void> gate = Sinks.one();
        PublisherProbe<Void> work = PublisherProbe.of(gate.asMono());
        queue.add("a");
        queue.add("b");
        queue.add("c");

        StepVerifier.create(queue.process(1, item -> work.mono()))
                .expectSubscription()
                .then(() -> {
                    AtomicBoolean drained = new AtomicBoolean();
                    queue.shutDownWithDrain().subscribe(null, null, () -> drained.set(true));
                    assertThat(drained).isFalse();
                    gate.tryEmitEmpty();
                    assertThat(drained).isTrue();
                })
                .verifyComplete();
        assertThat(work.subscribeCount()).isEqualTo(3);
    }
}
