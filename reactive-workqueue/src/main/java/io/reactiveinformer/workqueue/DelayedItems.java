package io.reactiveinformer.workqueue;

import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * Items waiting for their ready time: a min-heap by ready time, FIFO among equal times. An item
 * moved earlier (or made ready by a plain add) leaves a stale entry that is skipped when it
 * surfaces. Not thread-safe: guarded by the queue's lock.
 */
final class DelayedItems<T> {

    static final class Entry<T> {
        final ItemState<T> state;
        final long readyAt;
        final long sequence;

        Entry(ItemState<T> state, long readyAt, long sequence) {
            this.state = state;
            this.readyAt = readyAt;
            this.sequence = sequence;
        }
    }

    private static final Comparator<Entry<?>> BY_READY_TIME =
            Comparator.<Entry<?>>comparingLong(e -> e.readyAt).thenComparingLong(e -> e.sequence);

    private final PriorityQueue<Entry<T>> heap = new PriorityQueue<>(BY_READY_TIME);
    private long sequence;

    void offer(ItemState<T> state, long readyAt) {
        Entry<T> entry = new Entry<>(state, readyAt, sequence++);
        state.delayed = entry;
        heap.offer(entry);
    }

    /** The earliest live ready time, or {@link Long#MAX_VALUE} when nothing waits. */
    long earliest() {
        Entry<T> head;
        while ((head = heap.peek()) != null && head.state.delayed != head) {
            heap.poll();
        }
        return head == null ? Long.MAX_VALUE : head.readyAt;
    }

    /** The next item whose ready time is not after {@code now}, or null; its {@code delayed} is cleared. */
    ItemState<T> pollReady(long now) {
        if (earliest() > now) {
            return null;
        }
        ItemState<T> state = heap.poll().state;
        state.delayed = null;
        return state;
    }

    /** Drops every waiting item, calling {@code onDropped} for each live one. */
    void clear(java.util.function.Consumer<ItemState<T>> onDropped) {
        for (Entry<T> entry : heap) {
            if (entry.state.delayed == entry) {
                entry.state.delayed = null;
                onDropped.accept(entry.state);
            }
        }
        heap.clear();
    }
}
