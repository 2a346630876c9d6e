package io.reactiveinformer.workqueue;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Scannable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * One worker of a {@link ProcessMono}: the demand parked in the queue while it is free, and the
 * subscriber of the work of the item it holds while it is busy. Exactly one of completion, error and
 * cancellation settles each item ({@link #phase}).
 *
 * <p>It runs on the thread that hands it an item (see {@link ProcessMono} for the loops) and on the
 * threads that signal its work's end or cancel it; the atomic {@link #settle} and {@link #phase}
 * decide between them.
 *
 * <p>Work that is a {@link Callable} ({@code Mono.fromRunnable}, {@code fromCallable}, {@code just},
 * {@code empty}, {@code error}) is not subscribed: its value is taken on the slot's thread, as
 * reactor's {@code concatMap} does with such sources. That saves the per-item subscription's
 * atomics; a cancellation while it runs still releases the item, and the value that comes after is
 * ignored.
 *
 * <p>{@link Scannable} as an inner subscriber: its {@code PARENT} is the subscription of the work it
 * runs or last ran, its {@code ACTUAL} the {@link ProcessMono.Processor}.
 */
final class ProcessSlot<T> extends Demand<T> implements CoreSubscriber<Object>, Scannable {

    @SuppressWarnings("rawtypes")
    private static final AtomicReferenceFieldUpdater<ProcessSlot, Subscription> UPSTREAM =
            AtomicReferenceFieldUpdater.newUpdater(ProcessSlot.class, Subscription.class, "upstream");

    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<ProcessSlot> SETTLE =
            AtomicIntegerFieldUpdater.newUpdater(ProcessSlot.class, "settle");

    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<ProcessSlot> PHASE =
            AtomicIntegerFieldUpdater.newUpdater(ProcessSlot.class, "phase");

    /** The item is held but its work not yet subscribed; only the slot may release it. */
    static final int STARTING = 0;
    /** The work is subscribed; whoever settles first (a signal or a cancellation) owns the item. */
    static final int LIVE = 1;
    /** The item's fate is decided. */
    static final int SETTLED = 2;
    /** Cancelled while starting: the slot releases the item instead of starting it. */
    static final int CANCELLED_STARTING = 3;

    /** Subscribing to the work; a terminal signal now is handled by the subscribing loop. */
    static final int SUBSCRIBING = 0;
    /** Terminated while subscribing: the loop goes on with the next item. */
    static final int TERMINATED_INLINE = 1;
    /** Subscribed and returned: the terminal signal goes on with the next item. */
    static final int RUNNING = 2;

    final ProcessMono.Processor<T> processor;
    final DefaultWorkQueue<T> queue;

    /** The item held; set by the queue under its lock or on delivery, before {@link #settle} is reset. */
    T item;
    /** The priority the item was handed out with, kept for retries. */
    int priority;
    Outcome outcome;
    volatile Subscription upstream;
    volatile int settle = SETTLED;
    volatile int phase;
    /** Link in the processor's stack of delivered slots. */
    ProcessSlot<T> nextDelivered;

    ProcessSlot(ProcessMono.Processor<T> processor) {
        this.processor = processor;
        this.queue = processor.queue;
    }

    // ------------------------------------------------------------ as a demand

    @Override
    void deliver(T item, int priority) {
        this.item = item;
        this.priority = priority;
        prepare();
        if (!complete()) {
            queue.release(item);
            return;
        }
        processor.handOff(this);
    }

    @Override
    void drained() {
        if (complete()) {
            processor.ended();
        }
    }

    /**
     * Finishes {@code finished} (if not null) and takes the next item, or parks, or sees the
     * end. Returns true when the slot holds a new item to {@link #run}.
     */
    boolean advance(T finished) {
        if (finished != null && !rearm()) {
            // cancelled between two items
            queue.done(finished);
            return false;
        }
        switch (queue.next(this, finished)) {
            case DefaultWorkQueue.TAKEN -> {
                prepare();
                if (complete()) {
                    return true;
                }
                queue.release(item);
                return false;
            }
            case DefaultWorkQueue.DRAINED -> {
                if (complete()) {
                    processor.ended();
                }
                return false;
            }
            default -> {
                return false;
            }
        }
    }

    /** Resets the per-item state; must happen before the demand is completed, which publishes it. */
    private void prepare() {
        // ordered stores suffice: the compare-and-set completing the demand publishes them
        outcome = null;
        UPSTREAM.lazySet(this, null);
        SETTLE.lazySet(this, STARTING);
    }

    // ------------------------------------------------------------ running items

    /** Runs the held item, and the next ones for as long as their work terminates inline. */
    void run() {
        for (;;) {
            T current = item;
            if (settle != STARTING) {
                // cancelled before it started
                queue.release(current);
                return;
            }
            Publisher<?> work;
            try {
                work = Objects.requireNonNull(
                        processor.worker.apply(current), "the worker function returned null");
            } catch (Throwable e) {
                Exceptions.throwIfJvmFatal(e);
                work = Mono.error(e);
            }
            if (!SETTLE.compareAndSet(this, STARTING, LIVE)) {
                queue.release(current);
                return;
            }
            if (work instanceof Callable<?> scalar) {
                // as concatMap does with a Callable source: the value is known at subscription, so
                // it is taken here and the item settled on this thread, without a subscription to
                // set up or to cancel; a cancellation meanwhile still wins the settle
                if (!settleScalar(scalar) || !advance(current)) {
                    return;
                }
                continue;
            }
            // a terminal signal from another thread is ordered after this by the work's own hand-off
            PHASE.lazySet(this, SUBSCRIBING);
            try {
                work.subscribe(this);
            } catch (Throwable e) {
                // a publisher that breaks the spec by throwing must not wedge the slot
                Exceptions.throwIfJvmFatal(e);
                onError(e);
            }
            if (PHASE.compareAndSet(this, SUBSCRIBING, RUNNING)) {
                // the terminal signal (or a cancellation) takes over
                return;
            }
            if (!advance(current)) {
                return;
            }
        }
    }

    /** Takes a {@link Callable} work's value; true if this settled the item, false if a cancellation did. */
    private boolean settleScalar(Callable<?> scalar) {
        try {
            Object value = scalar.call();
            if (value != null) {
                onNext(value);
            }
        } catch (Throwable e) {
            Exceptions.throwIfJvmFatal(e);
            return failed(Exceptions.unwrap(e));
        }
        return succeeded();
    }

    /** The item is settled with the rate limiter; done it and go on, unless the subscribing loop will. */
    private void terminated() {
        if (PHASE.compareAndSet(this, SUBSCRIBING, TERMINATED_INLINE)) {
            return;
        }
        if (advance(item)) {
            run();
        }
    }

    void cancel() {
        int from = cancelFromAnyState();
        if (from == WAITING) {
            queue.unpark(this);
        } else if (from == DONE) {
            // holding an item: starting it, running it, or between two items
            for (;;) {
                int s = settle;
                if (s == STARTING) {
                    if (SETTLE.compareAndSet(this, STARTING, CANCELLED_STARTING)) {
                        return;
                    }
                } else if (s == LIVE) {
                    if (SETTLE.compareAndSet(this, LIVE, SETTLED)) {
                        Operators.terminate(UPSTREAM, this);
                        queue.release(item);
                        return;
                    }
                } else {
                    return;
                }
            }
        }
        // CLAIMED: the delivery sees the cancellation and gives the item back
    }

    @Override
    public Object scanUnsafe(Attr key) {
        if (key == Attr.PARENT) {
            return upstream;
        }
        if (key == Attr.ACTUAL) {
            return processor;
        }
        if (key == Attr.CANCELLED) {
            return isCancelled();
        }
        return null;
    }

    // ------------------------------------------------------------ as the work's subscriber

    @Override
    public Context currentContext() {
        return processor.actual.currentContext();
    }

    @Override
    public void onSubscribe(Subscription s) {
        if (Operators.setOnce(UPSTREAM, this, s)) {
            s.request(Long.MAX_VALUE);
        }
    }

    @Override
    public void onNext(Object value) {
        if (processor.outcomes) {
            outcome = (Outcome) value;
        }
    }

    @Override
    public void onError(Throwable e) {
        if (failed(e)) {
            terminated();
        }
    }

    @Override
    public void onComplete() {
        if (succeeded()) {
            terminated();
        }
    }

    /** Settles a failed item: logged and requeued with rate limiting; false if it was settled already. */
    private boolean failed(Throwable e) {
        if (!SETTLE.compareAndSet(this, LIVE, SETTLED)) {
            return false;
        }
        DefaultWorkQueue.LOG.warn(
                "work queue {}: processing {} failed; requeued with rate limiting unless shutting down",
                queue.name(),
                item,
                e);
        queue.addRateLimited(item, Priority.of(priority));
        return true;
    }

    /** Settles a succeeded item as its {@link Outcome} says; false if it was settled already. */
    private boolean succeeded() {
        if (!SETTLE.compareAndSet(this, LIVE, SETTLED)) {
            return false;
        }
        Outcome o = outcome == null ? Outcome.forget() : outcome;
        switch (o.kind()) {
            case FORGET -> queue.forget(item);
            case REQUEUE -> queue.addRateLimited(item, Priority.of(priority));
            case REQUEUE_AFTER -> {
                queue.forget(item);
                queue.addAfter(item, o.delay(), Priority.of(priority));
            }
        }
        return true;
    }
}
