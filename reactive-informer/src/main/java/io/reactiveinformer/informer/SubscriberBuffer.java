package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;

/**
 * One subscriber's side of the fan-out (what client-go's {@code processorListener} does with a
 * goroutine and a growing ring): the informer's apply loop {@link #offer offers} notifications without
 * ever waiting, and a drain loop on this subscriber's own {@link Scheduler.Worker} hands them to the
 * subscriber as it requests them.
 *
 * <p><b>Threading.</b> {@code offer}, {@code offerSynced}, {@code overflow} and {@code complete} are
 * called by the informer, serialized by its fan-out lock. The pending notifications are guarded by
 * this object's monitor, held only for a map or queue operation, never while the subscriber runs. The
 * drain loop is serialized by a work-in-progress counter and always runs on the worker, so the
 * subscriber is called on that worker only, one signal at a time, and its slowness or failure cannot
 * reach the informer or other subscribers.
 */
final class SubscriberBuffer<T extends KubernetesObject> implements Subscription, Runnable {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    /** What the buffer tells the registration that owns it. */
    interface Owner {
        /** Every notification before the {@code SYNCED} marker has been delivered. */
        void synced();

        /** The buffer ended, by cancel, error or completion; it takes no more offers. */
        void terminated(Throwable error);
    }

    private final String informerName;
    private final String name;
    private final PendingNotifications<T> pending;
    private final Scheduler.Worker worker;
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
    private boolean done;

    SubscriberBuffer(String informerName, String name, PendingNotifications<T> pending, Scheduler.Worker worker,
                     Owner owner, CoreSubscriber<? super Notification<T>> actual) {
        this.informerName = informerName;
        this.name = name;
        this.pending = pending;
        this.worker = worker;
        this.owner = owner;
        this.actual = actual;
    }

    /** Queues {@code n}; {@code false} when a bounded buffer is full (the caller then calls {@link #overflow}). */
    boolean offer(Notification<T> n) {
        int depth;
        synchronized (this) {
            if (!pending.offer(n)) {
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

    void offerSynced() {
        synchronized (this) {
            pending.offerSynced();
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
        synchronized (this) {
            return pending.depth();
        }
    }

    int maxDepth() {
        return maxDepth;
    }

    @Override
    public void request(long n) {
        if (Operators.validate(n)) {
            Operators.addCap(REQUESTED, this, n);
            schedule();
        }
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
        try {
            worker.schedule(this);
        } catch (RejectedExecutionException e) {
            // The worker is disposed only once the drain loop has terminated: nothing is left to deliver.
        }
    }

    @Override
    public void run() {
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
                    actual.onError(failure);
                    return;
                }
                if (cancelled) {
                    terminate(null);
                    return;
                }
                Object next;
                synchronized (this) {
                    next = pending.peek();
                    if (next == PendingNotifications.SYNCED || (next != null && e != r)) {
                        pending.remove();
                    } else {
                        next = null;
                    }
                }
                if (next == null) {
                    break;
                }
                if (next == PendingNotifications.SYNCED) {
                    owner.synced();
                    continue;
                }
                @SuppressWarnings("unchecked")
                Notification<T> notification = (Notification<T>) next;
                try {
                    actual.onNext(notification);
                } catch (Throwable t) {
                    Exceptions.throwIfFatal(t);
                    log.error("{}: subscriber {} failed on {}; removing it", informerName, name, notification.key(), t);
                    terminate(t);
                    actual.onError(Operators.onOperatorError(this, t, notification, actual.currentContext()));
                    return;
                }
                e++;
            }
            if (completing && depth() == 0) {
                terminate(null);
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
        done = true;
        synchronized (this) {
            pending.clear();
        }
        owner.terminated(failure);
        worker.dispose();
    }
}
