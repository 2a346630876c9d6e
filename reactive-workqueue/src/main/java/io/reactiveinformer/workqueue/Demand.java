package io.reactiveinformer.workqueue;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import reactor.core.Exceptions;

/**
 * A consumer's wish for one item, parked in the queue until an item is ready. The queue claims the
 * demand under its lock and delivers outside it, so a cancellation racing with the delivery is
 * decided by one compare-and-set: the demand either gets the item or the queue never gave it.
 */
abstract class Demand<T> {

    static final int WAITING = 0;
    static final int CLAIMED = 1;
    static final int DONE = 2;
    static final int CANCELLED = 3;

    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<Demand> STATE =
            AtomicIntegerFieldUpdater.newUpdater(Demand.class, "state");

    private volatile int state;

    // the hand-off decided under the queue's lock, carried out after it (deliverAll)
    Demand<T> nextHandOff;
    T handOffItem;
    int handOffPriority;

    /** The queue takes this demand for an item or for the end; fails if it was cancelled. */
    final boolean claim() {
        return STATE.compareAndSet(this, WAITING, CLAIMED);
    }

    final boolean isCancelled() {
        return state == CANCELLED;
    }

    /** Whether the demand was served (an item or the end); for a reused demand, until it is rearmed. */
    final boolean isDone() {
        return state == DONE;
    }

    /** Moves a claimed demand to done; false if it was cancelled after the claim. */
    final boolean complete() {
        return STATE.compareAndSet(this, CLAIMED, DONE);
    }

    /**
     * Cancels; returns the state it was cancelled from ({@link #WAITING} or {@link #CLAIMED}), or
     * {@link #DONE}/{@link #CANCELLED} when there was nothing to cancel.
     */
    final int tryCancel() {
        for (;;) {
            int current = state;
            if (current == DONE || current == CANCELLED) {
                return current;
            }
            if (STATE.compareAndSet(this, current, CANCELLED)) {
                return current;
            }
        }
    }

    /**
     * Cancels from any state, {@link #DONE} included, so a demand that is reused ({@link #rearm})
     * can be stopped between two uses; returns the state it was cancelled from, or
     * {@link #CANCELLED} if it already was.
     */
    final int cancelFromAnyState() {
        return STATE.getAndSet(this, CANCELLED);
    }

    /** Records the hand-off of a claimed demand and chains it onto {@code chain}; returns this. */
    final Demand<T> handOff(Demand<T> chain, T item, int priority) {
        handOffItem = item;
        handOffPriority = priority;
        nextHandOff = chain;
        return this;
    }

    /**
     * Carries out the hand-offs chained by {@link #handOff} (newest first) in the order they were
     * decided; called outside the queue's lock, by the thread that decided them.
     */
    static <T> void deliverAll(Demand<T> chain, String queueName) {
        Demand<T> inOrder = null;
        while (chain != null) {
            Demand<T> next = chain.nextHandOff;
            chain.nextHandOff = inOrder;
            inOrder = chain;
            chain = next;
        }
        while (inOrder != null) {
            Demand<T> demand = inOrder;
            inOrder = demand.nextHandOff;
            T item = demand.handOffItem;
            demand.nextHandOff = null;
            demand.handOffItem = null;
            demand.handOver(item, demand.handOffPriority, queueName);
        }
    }

    /**
     * Hands this claimed demand its item, or the end when {@code item} is null; called outside the
     * queue's lock. A consumer that throws is logged, so it cannot break the queue's caller.
     */
    final void handOver(T item, int priority, String queueName) {
        try {
            if (item != null) {
                deliver(item, priority);
            } else {
                drained();
            }
        } catch (Throwable e) {
            Exceptions.throwIfJvmFatal(e);
            DefaultWorkQueue.LOG.error("work queue {}: a consumer threw while receiving an item", queueName, e);
        }
    }

    /** Makes a done demand waiting again, for reuse; false if it was cancelled. */
    final boolean rearm() {
        return STATE.compareAndSet(this, DONE, WAITING);
    }

    /**
     * Receives a claimed item; called outside the queue's lock. The item is in processing: the
     * demand must see that it gets done, or release it back to the queue.
     */
    abstract void deliver(T item, int priority);

    /** The queue is shut down and has nothing left to hand out; called outside the queue's lock. */
    abstract void drained();
}
