package io.reactiveinformer.workqueue;

import static io.reactiveinformer.workqueue.Queues.tryGet;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class DelayingTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final WorkQueue<String> queue = Queues.virtual(time);

    @Test
    void readyExactlyAfterTheDelay() {
        queue.addAfter("a", Duration.ofMillis(50));

        time.advanceTimeBy(Duration.ofMillis(49));
        assertThat(queue.size()).isZero();
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(queue.size()).isEqualTo(1);
        assertThat(tryGet(queue)).isEqualTo("a");
    }

    @Test
    void aWaitingGetReceivesTheItemInVirtualTime() {
        StepVerifier.withVirtualTime(() -> {
                    WorkQueue<String> q = WorkQueue.<String>builder().build();
                    q.addAfter("a", Duration.ofSeconds(5));
                    return q.get();
                })
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(4999))
                .thenAwait(Duration.ofMillis(1))
                .expectNext("a")
                .verifyComplete();
    }

    @Test
    void zeroOrNegativeDelayAddsNow() {
        queue.addAfter("a", Duration.ZERO);
        queue.addAfter("b", Duration.ofMillis(-5));

        assertThat(queue.size()).isEqualTo(2);
    }

    @Test
    void aDuplicateKeepsTheEarliestReadyTime() {
        queue.addAfter("a", Duration.ofMillis(50));
        queue.addAfter("a", Duration.ofMillis(10));
        queue.addAfter("a", Duration.ofMillis(30));

        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(tryGet(queue)).isEqualTo("a");
        queue.done("a");

        // the later times were merged into the earliest one, not kept as extra entries
        time.advanceTimeBy(Duration.ofMillis(100));
        assertThat(queue.size()).isZero();
    }

    @Test
    void aPlainAddMakesADelayedItemReadyNowAndOnlyOnce() {
        queue.addAfter("a", Duration.ofMillis(50));
        queue.add("a");

        assertThat(tryGet(queue)).isEqualTo("a");
        queue.done("a");
        time.advanceTimeBy(Duration.ofMillis(100));
        assertThat(queue.size()).isZero();
    }

    @Test
    void aDelayedAddOfAPendingItemIsIgnored() {
        queue.add("a");
        queue.addAfter("a", Duration.ofMillis(10));

        assertThat(queue.size()).isEqualTo(1);
        queue.done(tryGet(queue));
        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(queue.size()).isZero();
    }

    @Test
    void aDelayedAddDuringProcessingIsQueuedAfterDone() {
        queue.add("a");
        assertThat(tryGet(queue)).isEqualTo("a");
        queue.addAfter("a", Duration.ofMillis(10));

        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(queue.size()).isZero();
        queue.done("a");
        assertThat(tryGet(queue)).isEqualTo("a");
    }

    @Test
    void itemsBecomeReadyInReadyTimeOrder() {
        queue.addAfter("c", Duration.ofMillis(30));
        queue.addAfter("a", Duration.ofMillis(10));
        queue.addAfter("b", Duration.ofMillis(20));
        queue.addAfter("d", Duration.ofMillis(30));

        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(queue.size()).isEqualTo(1);
        time.advanceTimeBy(Duration.ofMillis(20));
        assertThat(List.of(tryGet(queue), tryGet(queue), tryGet(queue), tryGet(queue)))
                .containsExactly("a", "b", "c", "d");
    }

    @Test
    void oneTimerForTheEarliestReadyTimeRearmedOnlyForAnEarlierItem() {
        CountingScheduler counting = new CountingScheduler(time);
        WorkQueue<String> q = WorkQueue.<String>builder().scheduler(counting).build();

        for (int i = 1; i <= 1000; i++) {
            q.addAfter("item" + i, Duration.ofMillis(100 + i));
        }
        assertThat(counting.scheduled.get()).isEqualTo(1);
        assertThat(counting.pending.get()).isEqualTo(1);

        q.addAfter("early", Duration.ofMillis(50));
        assertThat(counting.scheduled.get()).isEqualTo(2);
        assertThat(counting.pending.get()).as("the later timer is cancelled").isEqualTo(1);

        time.advanceTimeBy(Duration.ofMillis(50));
        assertThat(q.size()).isEqualTo(1);
        assertThat(counting.pending.get()).isEqualTo(1);

        time.advanceTimeBy(Duration.ofMillis(1050));
        assertThat(q.size()).isEqualTo(1001);
        assertThat(counting.pending.get()).isZero();
    }

    @Test
    void manyItemsWithTheSameReadyTimeShareOneTimer() {
        CountingScheduler counting = new CountingScheduler(time);
        WorkQueue<String> q = WorkQueue.<String>builder().scheduler(counting).build();

        for (int i = 0; i < 10_000; i++) {
            q.addAfter("item" + i, Duration.ofSeconds(1));
        }
        time.advanceTimeBy(Duration.ofSeconds(1));

        assertThat(counting.scheduled.get()).isEqualTo(1);
        assertThat(q.size()).isEqualTo(10_000);
        assertThat(tryGet(q)).isEqualTo("item0");
    }

    @Test
    void worksOnARealScheduler() {
        WorkQueue<String> q = WorkQueue.<String>builder().scheduler(Schedulers.parallel()).build();
        q.addAfter("a", Duration.ofMillis(20));

        StepVerifier.create(q.get()).expectNext("a").expectComplete().verify(Duration.ofSeconds(10));
    }

    /** Counts timers and how many are scheduled and neither run nor cancelled. */
    static final class CountingScheduler implements Scheduler {
        final Scheduler delegate;
        final AtomicInteger scheduled = new AtomicInteger();
        final AtomicInteger pending = new AtomicInteger();

        CountingScheduler(Scheduler delegate) {
            this.delegate = delegate;
        }

        @Override
        public Disposable schedule(Runnable task) {
            return schedule(task, 0, TimeUnit.NANOSECONDS);
        }

        @Override
        public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
            scheduled.incrementAndGet();
            pending.incrementAndGet();
            AtomicInteger once = new AtomicInteger();
            Disposable d = delegate.schedule(
                    () -> {
                        if (once.compareAndSet(0, 1)) {
                            pending.decrementAndGet();
                        }
                        task.run();
                    },
                    delay,
                    unit);
            return () -> {
                if (once.compareAndSet(0, 1)) {
                    pending.decrementAndGet();
                }
                d.dispose();
            };
        }

        @Override
        public long now(TimeUnit unit) {
            return delegate.now(unit);
        }

        @Override
        public Worker createWorker() {
            return delegate.createWorker();
        }
    }
}
