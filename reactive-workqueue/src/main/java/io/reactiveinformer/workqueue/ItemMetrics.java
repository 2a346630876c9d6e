package io.reactiveinformer.workqueue;

import java.util.HashSet;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import reactor.core.scheduler.Scheduler;

/**
 * The bookkeeping behind a queue's {@link WorkQueueMetrics}: counts adds and retries, times each item
 * in the queue and in processing (in {@link ItemState#sinceNanos}), and keeps the items in processing
 * for the unfinished-work gauges. With {@link NoopWorkQueueMetrics} it keeps nothing and never reads
 * the clock, so a queue without metrics pays for none.
 *
 * <p>Guarded by the queue's lock: the {@code ...Locked} methods are called holding it, on whichever
 * thread adds, takes or finishes an item, or samples a gauge; {@link #retried} is called before the
 * lock is taken. Times come from the queue's scheduler.
 */
final class ItemMetrics<T> {

    private final WorkQueueMetrics recorder;
    private final Scheduler clock;
    /** The items in processing; null when metrics are off. */
    private final HashSet<ItemState<T>> inFlight;

    /** @param recorder what the provider registered for the queue; must not be null */
    ItemMetrics(WorkQueueMetrics recorder, Scheduler clock) {
        this.recorder = Objects.requireNonNull(recorder, "metrics provider returned null");
        this.clock = clock;
        this.inFlight = recorder != NoopWorkQueueMetrics.INSTANCE ? new HashSet<>() : null;
    }

    /** An item became pending. */
    void addedLocked() {
        recorder.added();
    }

    /** An item is handed to the rate limiter to be added again. */
    void retried() {
        recorder.retried();
    }

    /** An item entered the ready queue: its queue time starts. */
    void queuedLocked(ItemState<T> state) {
        if (inFlight != null) {
            state.sinceNanos = now();
        }
    }

    /** An item was handed out: its queue time ends, its processing time starts. */
    void handedOutLocked(ItemState<T> state) {
        if (inFlight != null) {
            long now = now();
            recorder.queued(now - state.sinceNanos);
            state.sinceNanos = now;
            inFlight.add(state);
        }
    }

    /** An item's processing ended. */
    void doneLocked(ItemState<T> state) {
        if (inFlight != null) {
            recorder.worked(now() - state.sinceNanos);
            inFlight.remove(state);
        }
    }

    /** {@link WorkQueueMetrics.Gauges#unfinishedWorkSeconds()}. */
    double unfinishedWorkSecondsLocked() {
        if (inFlight == null) {
            return 0;
        }
        long now = now();
        long total = 0;
        for (ItemState<T> state : inFlight) {
            total += now - state.sinceNanos;
        }
        return total / 1e9;
    }

    /** {@link WorkQueueMetrics.Gauges#longestRunningProcessorSeconds()}. */
    double longestRunningProcessorSecondsLocked() {
        if (inFlight == null) {
            return 0;
        }
        long now = now();
        long longest = 0;
        for (ItemState<T> state : inFlight) {
            longest = Math.max(longest, now - state.sinceNanos);
        }
        return longest / 1e9;
    }

    private long now() {
        return clock.now(TimeUnit.NANOSECONDS);
    }
}
