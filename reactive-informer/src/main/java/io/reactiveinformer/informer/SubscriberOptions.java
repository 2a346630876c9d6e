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
 * @param blockingHandler whether the subscriber's handler blocks (see {@link #blocking()})
 * @param syncMarker   whether the subscriber receives a {@link Notification.Synced} right after its
 *                     initial items (see {@link #withSyncMarker()})
 */
public record SubscriberOptions(String name, Duration resyncPeriod, BufferPolicy policy, int capacity,
                                boolean blockingHandler, boolean syncMarker) {

    /** client-go's minimum resync period. */
    public static final Duration MINIMUM_RESYNC_PERIOD = Duration.ofSeconds(1);

    private static final SubscriberOptions DEFAULTS = new SubscriberOptions(null, Duration.ZERO, BufferPolicy.COALESCE,
            Integer.MAX_VALUE, false, false);

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
        return new SubscriberOptions(name, resyncPeriod, policy, capacity, blockingHandler, syncMarker);
    }

    public SubscriberOptions withResyncPeriod(Duration resyncPeriod) {
        return new SubscriberOptions(name, resyncPeriod, policy, capacity, blockingHandler, syncMarker);
    }

    /** {@link BufferPolicy#COALESCE}. */
    public SubscriberOptions coalescing() {
        return new SubscriberOptions(name, resyncPeriod, BufferPolicy.COALESCE, Integer.MAX_VALUE, blockingHandler, syncMarker);
    }

    /** {@link BufferPolicy#UNBOUNDED}. */
    public SubscriberOptions unbounded() {
        return new SubscriberOptions(name, resyncPeriod, BufferPolicy.UNBOUNDED, Integer.MAX_VALUE, blockingHandler, syncMarker);
    }

    /** {@link BufferPolicy#BOUNDED} with at most {@code capacity} pending notifications. */
    public SubscriberOptions bounded(int capacity) {
        return new SubscriberOptions(name, resyncPeriod, BufferPolicy.BOUNDED, capacity, blockingHandler, syncMarker);
    }

    /**
     * Declares that the handler blocks (sleeps, waits on a lock, a future or blocking I/O): it is then
     * served on the informer's blocking scheduler ({@link SharedIndexInformer.Builder#blockingScheduler},
     * {@code Schedulers.boundedElastic()} by default) instead of its delivery scheduler.
     *
     * <p>The rule: a handler that only computes (however long it takes) needs nothing, because a
     * subscriber runs a bounded slice of its backlog at a time and then lets the others run, so a slow
     * one delays the others by at most one of its handler calls. A handler that <em>blocks</em> must say
     * so: on the delivery scheduler (one thread per core, shared by every subscriber of every informer)
     * each blocked call holds a whole thread, and BlockHound, if installed, fails it. The cost of the
     * blocking scheduler: a thread switch per batch and a thread per concurrently blocked subscriber.
     * Better still is a handler that does not block: return the work as a {@code Mono} and
     * {@code concatMap} it.
     */
    public SubscriberOptions blocking() {
        return new SubscriberOptions(name, resyncPeriod, policy, capacity, true, syncMarker);
    }

    /**
     * Asks for a {@link Notification.Synced} marker in the stream, exactly after this subscriber's
     * initial items (the whole cache at subscription, or the initial list if it subscribed before the
     * informer synced), so a consumer that renders state can tell "initial state complete" in band.
     * The marker counts against demand like any notification.
     */
    public SubscriberOptions withSyncMarker() {
        return new SubscriberOptions(name, resyncPeriod, policy, capacity, blockingHandler, true);
    }
}
