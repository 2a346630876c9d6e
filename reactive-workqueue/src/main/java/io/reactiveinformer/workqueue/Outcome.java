package io.reactiveinformer.workqueue;

import java.time.Duration;
import java.util.Objects;

/**
 * What {@link WorkQueue#processWithOutcome} does with an item after its work completed without
 * error. An error always means "requeue with rate limiting".
 */
public final class Outcome {

    private static final Outcome FORGET = new Outcome(Kind.FORGET, Duration.ZERO);
    private static final Outcome REQUEUE = new Outcome(Kind.REQUEUE, Duration.ZERO);

    enum Kind {
        FORGET,
        REQUEUE,
        REQUEUE_AFTER
    }

    private final Kind kind;
    private final Duration delay;

    private Outcome(Kind kind, Duration delay) {
        this.kind = kind;
        this.delay = delay;
    }

    /** Done: the item's failure history is forgotten ({@link WorkQueue#forget}). */
    public static Outcome forget() {
        return FORGET;
    }

    /**
     * Not done yet: the item is added again through the rate limiter
     * ({@link WorkQueue#addRateLimited}), its failure history kept, so its delay keeps growing.
     */
    public static Outcome requeue() {
        return REQUEUE;
    }

    /**
     * Done for now, look again later: the failure history is forgotten and the item added again
     * after {@code delay} ({@link WorkQueue#addAfter}).
     *
     * <p>A zero or negative {@code delay} (typically one computed from a moment that has passed) is
     * {@link #requeue()}: through the rate limiter, the failure history kept. Taken literally it would
     * add the item back at once with its history forgotten, so a worker answering it every time would
     * loop as fast as it runs, with nothing to slow it down.
     */
    public static Outcome requeueAfter(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isZero() || delay.isNegative()) {
            return REQUEUE;
        }
        return new Outcome(Kind.REQUEUE_AFTER, delay);
    }

    Kind kind() {
        return kind;
    }

    Duration delay() {
        return delay;
    }

    @Override
    public String toString() {
        return kind == Kind.REQUEUE_AFTER ? "Outcome[requeueAfter " + delay + "]" : "Outcome[" + kind + "]";
    }
}
