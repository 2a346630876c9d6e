package io.reactiveinformer.informer;

import java.time.Duration;
import java.util.Objects;

/**
 * How one subscriber of a {@link SharedIndexInformer} is served.
 *
 * @param name         what logs and metrics call this subscriber; {@code null} for a generated name
 * @param resyncPeriod how often this subscriber wants every cached object re-delivered as a resync
 *                     {@link Notification.Updated}; {@link Duration#ZERO} for never. A positive period
 *                     below {@link #MINIMUM_RESYNC_PERIOD} is raised to it.
 * @param policy       how pending notifications are held (see {@link BufferPolicy})
 * @param capacity     the most pending notifications with {@link BufferPolicy#BOUNDED}; ignored otherwise
 */
public record SubscriberOptions(String name, Duration resyncPeriod, BufferPolicy policy, int capacity) {

    /** client-go's minimum resync period. */
    public static final Duration MINIMUM_RESYNC_PERIOD = Duration.ofSeconds(1);

    private static final SubscriberOptions DEFAULTS = new SubscriberOptions(null, Duration.ZERO, BufferPolicy.COALESCE,
            Integer.MAX_VALUE);

    public SubscriberOptions {
        Objects.requireNonNull(resyncPeriod, "resyncPeriod");
        Objects.requireNonNull(policy, "policy");
        if (resyncPeriod.isNegative()) {
            throw new IllegalArgumentException("resyncPeriod must not be negative: " + resyncPeriod);
        }
        if (!resyncPeriod.isZero() && resyncPeriod.compareTo(MINIMUM_RESYNC_PERIOD) < 0) {
            resyncPeriod = MINIMUM_RESYNC_PERIOD;
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
    }

    /** A generated name, no resync, {@link BufferPolicy#COALESCE}. */
    public static SubscriberOptions defaults() {
        return DEFAULTS;
    }

    public SubscriberOptions withName(String name) {
        return new SubscriberOptions(name, resyncPeriod, policy, capacity);
    }

    public SubscriberOptions withResyncPeriod(Duration resyncPeriod) {
        return new SubscriberOptions(name, resyncPeriod, policy, capacity);
    }

    /** {@link BufferPolicy#COALESCE}. */
    public SubscriberOptions coalescing() {
        return new SubscriberOptions(name, resyncPeriod, BufferPolicy.COALESCE, Integer.MAX_VALUE);
    }

    /** {@link BufferPolicy#UNBOUNDED}. */
    public SubscriberOptions unbounded() {
        return new SubscriberOptions(name, resyncPeriod, BufferPolicy.UNBOUNDED, Integer.MAX_VALUE);
    }

    /** {@link BufferPolicy#BOUNDED} with at most {@code capacity} pending notifications. */
    public SubscriberOptions bounded(int capacity) {
        return new SubscriberOptions(name, resyncPeriod, BufferPolicy.BOUNDED, capacity);
    }
}
