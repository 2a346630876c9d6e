package io.reactiveinformer.workqueue;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;

/**
 * Items ready to be handed out: one FIFO per priority, highest priority first. Raising a queued
 * item's priority appends a new entry to the higher FIFO and leaves the old one behind as a stale
 * entry that {@link #poll} skips, so a raise costs O(log priorities), not a linear removal.
 * Not thread-safe: guarded by the queue's lock.
 */
final class ReadyQueue<T> {

    static final class Entry<T> {
        final ItemState<T> state;

        Entry(ItemState<T> state) {
            this.state = state;
        }
    }

    private final TreeMap<Integer, ArrayDeque<Entry<T>>> fifos = new TreeMap<>();
    // reused so a queue that keeps emptying at the normal priority does not reallocate its FIFO
    private final ArrayDeque<Entry<T>> normalFifo = new ArrayDeque<>();
    private int size;

    int size() {
        return size;
    }

    void offer(ItemState<T> state) {
        Entry<T> entry = new Entry<>(state);
        state.ready = entry;
        int priority = state.priority;
        ArrayDeque<Entry<T>> fifo = fifos.get(priority);
        if (fifo == null) {
            fifo = priority == 0 ? normalFifo : new ArrayDeque<>();
            fifos.put(priority, fifo);
        }
        fifo.addLast(entry);
        size++;
    }

    /** Moves a queued item to the back of its (new, higher) priority's FIFO. */
    void requeue(ItemState<T> state) {
        state.ready = null;
        size--;
        offer(state);
    }

    /** The next item, or null when empty; the item's {@code ready} is cleared. */
    ItemState<T> poll() {
        while (size > 0) {
            Map.Entry<Integer, ArrayDeque<Entry<T>>> highest = fifos.lastEntry();
            ArrayDeque<Entry<T>> fifo = highest.getValue();
            Entry<T> entry = fifo.pollFirst();
            if (fifo.isEmpty()) {
                fifos.remove(highest.getKey());
            }
            if (entry != null && entry.state.ready == entry) {
                entry.state.ready = null;
                size--;
                return entry.state;
            }
        }
        // only stale entries are left
        fifos.clear();
        return null;
    }
}
