package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.function.Supplier;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Scannable;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;

/**
 * One subscriber's side of the fan-out (what client-go's {@code processorListener} does with a
 * goroutine and a growing ring): the informer's apply loop {@link #offer offers} notifications without
 * ever waiting, and a drain task hands them to the subscriber as it requests them.
 *
 * <p><b>Threading.</b> {@code startFrom}, {@code offer}, {@code offerSynced} and {@code overflow} are
 * called by the informer's apply loop, one at a time; {@code complete} also by the thread that stops the
 * informer. None of them waits for the subscriber or does more than O(1) work. The pending notifications
 * are guarded by a private lock, held only for a map or queue operation, never while the subscriber runs. The drain task
 * is serialized by a work-in-progress counter and is <em>scheduled</em> on the {@link Scheduler} each
 * time it has work, not pinned to one of its workers: it delivers for about a millisecond (at least one
 * notification) and then, if more is pending, schedules itself again and returns. So a subscriber whose
 * handler is slow holds a scheduler thread for one handler call at a time and the other subscribers'
 * tasks run in between, on that thread or another: a slow subscriber delays the others by at most one
 * of its handler calls, never by its backlog (a pinned worker would make every subscriber that shares
 * its thread wait for the slow one's whole backlog). The subscriber is called one signal at a time,
 * possibly on a different thread of the scheduler each run (each run happens after the previous one,
 * through the counter); its failure reaches neither the informer nor other subscribers. While the
 * subscriber's initial state is still being handed over, the task runs on the initial-state scheduler
 * instead, so that joining subscribers never queue ahead of live changes on the delivery threads.
 *
 * <p><b>Rule 3.9.</b> A {@code request(n)} with {@code n <= 0} ends the subscriber with an
 * {@link IllegalArgumentException}, as the Reactive Streams specification requires, where Reactor's
 * own operators only log it: otherwise the handler would stay registered, buffering notifications
 * for a subscriber that will never take them. The error is signalled by the drain task, like an
 * overflow, so it never overlaps an {@code onNext}; if both happen, the one written last is reported.
 *
 * <p><b>Termination.</b> Once ended the buffer discards what it holds and ignores later offers (one
 * may still arrive before the owner has removed it), so a finished subscriber keeps no notification.
 *
 * <p>{@link Scannable}: {@code RUN_STYLE} is {@code ASYNC} (signals come from the drain task on the
 * scheduler), {@code BUFFERED} is {@link #depth()}.
 */
final class SubscriberBuffer<T extends KubernetesObject> implements Subscription, Runnable, Scannable {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    /** What the buffer tells the registration that owns it. */
    interface Owner {
        /** Every notification before the {@code SYNCED} marker has been delivered. */
        void synced();

        /** The buffer ended, by cancel, error or completion; it takes no more offers. */
        void terminated(Throwable error);

        /** The subscriber threw from {@code onNext}; {@link #terminated} follows. */
        void handlerFailed(Notification<?> notification, Throwable error);
    }

    /** How long one run of the drain task may deliver before it lets other tasks have the thread. */
    private static final long SLICE_NANOS = 1_000_000;

    private final String informerName;
    private final String name;
    private final PendingNotifications<T> pending;
    private final Object pendingLock = new Object();
    private final Scheduler scheduler;
    private final Scheduler initialStateScheduler;
    private final boolean syncMarker;
    private final Owner owner;
    private final CoreSubscriber<? super Notification<T>> actual;

    private volatile int wip;
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<SubscriberBuffer> WIP =
            AtomicIntegerFieldUpdater.newUpdater(SubscriberBuffer.class, "wip");

    private volatile long requested;
    @SuppressWarnings("rawtypes")
    private static final AtomicLongFieldUpdater<SubscriberBuffer> REQUESTED =
            AtomicLongFieldUpdater.newUpdater(SubscriberBuffer.class, "requested");

    private volatile boolean ready;
    private volatile boolean cancelled;
    private volatile boolean completing;
    private volatile Throwable error;
    private volatile int maxDepth;
    /** Written by the drain task, under {@code pendingLock}, when the subscriber ended. */
    private volatile boolean done;
    /** The subscriber was sent {@code onComplete} or {@code onError} (not just cancelled). */
    private volatile boolean signalled;

    /**
     * @param scheduler             runs the drain task
     * @param initialStateScheduler runs it instead while the initial state is being handed over, so that
     *                              joining subscribers do not queue ahead of live changes
     * @param syncMarker            whether the subscriber receives {@link Notification.Synced} at the sync point
     */
    SubscriberBuffer(String informerName, String name, PendingNotifications<T> pending, Scheduler scheduler,
                     Scheduler initialStateScheduler, boolean syncMarker, Owner owner,
                     CoreSubscriber<? super Notification<T>> actual) {
        this.informerName = informerName;
        this.name = name;
        this.pending = pending;
        this.scheduler = scheduler;
        this.initialStateScheduler = initialStateScheduler;
        this.syncMarker = syncMarker;
        this.owner = owner;
        this.actual = actual;
    }

    /**
     * Starts the subscriber's stream with the informer's state when it joined (see
     * {@link PendingNotifications#offerSnapshot}); called once, before any {@link #offer}.
     */
    void startFrom(Supplier<List<T>> cache, boolean synced, long nanos) {
        synchronized (pendingLock) {
            if (done) {
                return;
            }
            pending.offerSnapshot(cache, synced, nanos);
        }
        schedule();
    }

    /**
     * Queues {@code n}, offered at {@code nanos} on the informer's clock; {@code false} when a bounded
     * buffer is full (the caller then calls {@link #overflow}).
     */
    boolean offer(Notification<T> n, long nanos) {
        int depth;
        synchronized (pendingLock) {
            if (done) {
                return true;
            }
            if (!pending.offer(n, nanos)) {
                return false;
            }
            depth = pending.depth();
        }
        if (depth > maxDepth) {
            maxDepth = depth;
        }
        schedule();
        return true;
    }

    void offerSynced(long nanos) {
        synchronized (pendingLock) {
            if (done) {
                return;
            }
            pending.offerSynced(nanos);
        }
        schedule();
    }

    /** Ends the subscriber with an overflow error, discarding what is pending. */
    void overflow(int capacity) {
        error = Exceptions.failWithOverflow(informerName + ": subscriber " + name + " has " + capacity
                + " notifications pending (its buffer capacity) and cannot take more");
        schedule();
    }

    /** Completes the subscriber once everything pending is delivered. */
    void complete() {
        completing = true;
        schedule();
    }

    int depth() {
        synchronized (pendingLock) {
            return pending.depth();
        }
    }

    /**
     * How long the oldest undelivered notification has waited, in nanoseconds of the informer's clock
     * given as {@code now}; 0 when nothing is pending.
     */
    long oldestPendingAge(long now) {
        long oldest;
        synchronized (pendingLock) {
            oldest = pending.oldestNanos();
        }
        return oldest == PendingNotifications.NONE ? 0 : Math.max(0, now - oldest);
    }

    /** Whether a notification or the sync marker is still to be handed over. */
    private boolean hasPending() {
        synchronized (pendingLock) {
            return pending.peek() != null;
        }
    }

    int maxDepth() {
        return maxDepth;
    }

    /** Rule 3.9: {@code n <= 0} ends the subscriber with an {@link IllegalArgumentException} (see the class Javadoc). */
    @Override
    public void request(long n) {
        if (n <= 0) {
            if (!cancelled) {
                error = Exceptions.nullOrNegativeRequestException(n);
                schedule();
            }
            return;
        }
        Operators.addCap(REQUESTED, this, n);
        schedule();
    }

    @Override
    public void cancel() {
        if (!cancelled) {
            cancelled = true;
            log.debug("{}: subscriber {} cancelled", informerName, name);
            schedule();
        }
    }

    /** Lets the drain loop run: called once the subscriber has its {@link Subscription}. */
    void start() {
        ready = true;
        schedule();
    }

    private void schedule() {
        if (!ready || WIP.getAndIncrement(this) != 0) {
            return;
        }
        reschedule();
    }

    /**
     * Runs the drain task on the scheduler. A scheduler that rejects it (shut down, or saturated) ends
     * the subscriber with the rejection, signalled from here: no drain task runs (this is the one
     * scheduling it, with the work-in-progress counter held), so it cannot overlap an {@code onNext}.
     */
    private void reschedule() {
        try {
            boolean initialState;
            synchronized (pendingLock) {
                initialState = pending.inInitialState();
            }
            (initialState ? initialStateScheduler : scheduler).schedule(this);
        } catch (RejectedExecutionException e) {
            log.warn("{}: subscriber {} ends: its scheduler rejected its drain task", informerName, name, e);
            // No subscription is handed over: Reactor's hook would cancel it, and the subscriber must hear why.
            Throwable failure = Operators.onRejectedExecution(e, null, null, null, actual.currentContext());
            boolean wasCancelled = cancelled;
            terminate(failure);
            if (!wasCancelled) {
                signalled = true;
                actual.onError(failure);
            }
        }
    }

    @Override
    public void run() {
        long sliceStart = System.nanoTime();
        int missed = 1;
        for (;;) {
            if (done) {
                return;
            }
            if (cancelled) {
                terminate(null);
                return;
            }
            long r = requested;
            long e = 0;
            for (;;) {
                Throwable failure = error;
                if (failure != null) {
                    terminate(failure);
                    signalled = true;
                    actual.onError(failure);
                    return;
                }
                if (cancelled) {
                    terminate(null);
                    return;
                }
                if (e != 0 && e != r && System.nanoTime() - sliceStart >= SLICE_NANOS && hasPending()) {
                    // Let the other tasks on this thread run; WIP stays above zero, so no one else
                    // schedules this buffer meanwhile.
                    REQUESTED.addAndGet(this, r == Long.MAX_VALUE ? 0 : -e);
                    reschedule();
                    return;
                }
                Object next;
                synchronized (pendingLock) {
                    next = pending.peek();
                    boolean marker = next == PendingNotifications.SYNCED;
                    if ((marker && !syncMarker) || (next != null && e != r)) {
                        pending.remove();
                    } else {
                        next = null;
                    }
                }
                if (next == null) {
                    break;
                }
                Notification<T> notification;
                if (next == PendingNotifications.SYNCED) {
                    owner.synced();
                    if (!syncMarker) {
                        continue;
                    }
                    notification = new Notification.Synced<>();
                } else {
                    @SuppressWarnings("unchecked")
                    Notification<T> n = (Notification<T>) next;
                    notification = n;
                }
                try {
                    actual.onNext(notification);
                } catch (Throwable t) {
                    Exceptions.throwIfFatal(t);
                    owner.handlerFailed(notification, t);
                    terminate(t);
                    signalled = true;
                    actual.onError(Operators.onOperatorError(this, t, notification, actual.currentContext()));
                    return;
                }
                e++;
            }
            if (completing && !hasPending()) {
                terminate(null);
                signalled = true;
                actual.onComplete();
                return;
            }
            if (e != 0 && r != Long.MAX_VALUE) {
                REQUESTED.addAndGet(this, -e);
            }
            missed = WIP.addAndGet(this, -missed);
            if (missed == 0) {
                return;
            }
        }
    }

    private void terminate(Throwable failure) {
        synchronized (pendingLock) {
            done = true;
            pending.clear();
        }
        owner.terminated(failure);
    }

    @Override
    public Object scanUnsafe(Attr key) {
        if (key == Attr.ACTUAL) {
            return actual;
        }
        if (key == Attr.CANCELLED) {
            return cancelled;
        }
        if (key == Attr.TERMINATED) {
            return signalled;
        }
        if (key == Attr.REQUESTED_FROM_DOWNSTREAM) {
            return requested;
        }
        if (key == Attr.BUFFERED) {
            return depth();
        }
        if (key == Attr.RUN_STYLE) {
            return Attr.RunStyle.ASYNC;
        }
        if (key == Attr.NAME) {
            return informerName + "/" + name;
        }
        return null;
    }
}
