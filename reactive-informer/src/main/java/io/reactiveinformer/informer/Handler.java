package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import java.time.Duration;
import java.util.function.LongSupplier;
import reactor.core.CoreSubscriber;
import reactor.core.scheduler.Scheduler;

/**
 * The informer's side of one subscribed {@link HandlerRegistration}: its {@link SubscriberBuffer}, its
 * effective resync period and next due time, and what its end must undo. Created when the registration's
 * flux is subscribed and owned by the {@link SharedProcessor}; the public registration only reads it.
 *
 * <p><b>Threading.</b> The resync fields are written by {@link ResyncSchedule} (joining, on the
 * subscribing thread, and its timer) and read by the apply loop, hence volatile. The owner callbacks run
 * on the buffer's drain task.
 */
final class Handler<T extends KubernetesObject> implements SubscriberBuffer.Owner {

    private final HandlerRegistration<T> registration;
    private final SharedProcessor<T> processor;
    private final UserCode userCode;
    private final LongSupplier clock;
    final SubscriberBuffer<T> buffer;

    volatile Duration resyncPeriod = Duration.ZERO;
    /** When this handler's next resync is due, in the informer scheduler's milliseconds. */
    volatile long nextResyncMillis;
    /** Left, or ended before it joined; guarded by the processor's membership lock. */
    boolean removed;
    /** Stops the metrics observing this handler; set before the buffer can end. */
    private volatile Runnable unobserve = () -> { };

    Handler(String informer, HandlerRegistration<T> registration, SharedProcessor<T> processor, UserCode userCode,
            LongSupplier clock, Scheduler scheduler, Scheduler initialStateScheduler,
            CoreSubscriber<? super Notification<T>> actual) {
        this.registration = registration;
        this.processor = processor;
        this.userCode = userCode;
        this.clock = clock;
        SubscriberOptions options = registration.options();
        this.buffer = new SubscriberBuffer<>(informer, registration.name(), PendingNotifications.of(options),
                scheduler, initialStateScheduler, options.syncMarker(), this, actual);
    }

    HandlerRegistration<T> registration() {
        return registration;
    }

    String name() {
        return registration.name();
    }

    SubscriberOptions options() {
        return registration.options();
    }

    /** How long the oldest undelivered notification has waited, in nanoseconds; 0 when none is pending. */
    long lag() {
        return buffer.oldestPendingAge(clock.getAsLong());
    }

    void observedBy(Runnable unobserve) {
        this.unobserve = unobserve;
    }

    @Override
    public void synced() {
        registration.markSynced();
    }

    @Override
    public void terminated(Throwable error) {
        processor.remove(this);
        unobserve.run();
        registration.ended(error);
    }

    @Override
    public void handlerFailed(Notification<?> notification, Throwable error) {
        userCode.failed(UserCodeError.Stage.HANDLER, notification.key(), registration.name(), error);
    }

    @Override
    public String toString() {
        return "Handler[" + registration.name() + "]";
    }
}
