package io.reactiveinformer.workqueue;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;

/**
 * Items ready to be handed out: one FIFO per priority, highest priority first. Raising a queued
 * item's priority appends a new entry to the higher FIFO and leaves the old one behind as a stale
 * entry that {@link #poll} skips, so a raise costs O(log priorities), not a linear removal. The
 * normal priority has its own FIFO outside the map, so a queue that never uses priorities never
 * touches the map. Not thread-safe: guarded by the queue's lock.
 */
final class ReadyQueue<T> {

    static final class Entry<T> {
        final ItemState<T> state;

        Entry(ItemState<T> state) {
            this.state = state;
        }
    }

    private final ArrayDeque<Entry<T>> normal = new ArrayDeque<>();
    /** FIFOs of the other priorities; a FIFO is removed when it runs empty. */
    private final TreeMap<Integer, ArrayDeque<Entry<T>>> others = new TreeMap<>();
    private int size;

    int size() {
        return size;
    }

    void offer(ItemState<T> state) {
        Entry<T> entry = new Entry<>(state);
        state.ready = entry;
        int priority = state.priority;
        if (priority == 0) {
            normal.addLast(entry);
        } else {
            others.computeIfAbsent(priority, p -> new ArrayDeque<>()).addLast(entry);
        }
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
            Entry<T> entry = pollEntry();
            if (entry.state.ready == entry) {
                entry.state.ready = null;
                size--;
                return entry.state;
            }
        }
        return null;
    }

    /** The head of the highest non-empty FIFO, live or stale; only called while a live entry exists. */
    private Entry<T> pollEntry() {
        if (!others.isEmpty()) {
            Map.Entry<Integer, ArrayDeque<Entry<T>>> highest = others.lastEntry();
            if (highest.getKey() > 0 || normal.isEmpty()) {
                ArrayDeque<Entry<T>> fifo = highest.getValue();
                Entry<T> entry = fifo.pollFirst();
                if (fifo.isEmpty()) {
                    others.remove(highest.getKey());
                }
                return entry;
            }
        }
        return normal.pollFirst();
    }
}
