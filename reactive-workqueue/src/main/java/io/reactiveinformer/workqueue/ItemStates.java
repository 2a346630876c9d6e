package io.reactiveinformer.workqueue;

/**
 * The {@link ItemState}s of the items the queue knows, found by item ({@code equals}/{@code hashCode}): an
 * open-addressing table with linear probing that holds the states themselves. A {@code HashMap} would
 * allocate a 32-byte node per item on top of its state, the largest allocation of an {@code add}; this table
 * allocates only when it grows or shrinks. Removal shifts the rest of a probe run back instead of leaving
 * tombstones, so lookups never walk past deleted slots. Not thread-safe: guarded by the queue's lock.
 */
final class ItemStates<T> {

    private static final int MIN_CAPACITY = 16;

    private ItemState<T>[] table = newTable(MIN_CAPACITY);
    private int size;

    /** The state of {@code item}, or null. */
    ItemState<T> get(T item) {
        ItemState<T>[] t = table;
        int mask = t.length - 1;
        for (int i = home(item, mask); ; i = (i + 1) & mask) {
            ItemState<T> state = t[i];
            if (state == null || state.item.equals(item)) {
                return state;
            }
        }
    }

    /** Adds the state of an item the table does not hold. */
    void add(ItemState<T> state) {
        if ((size + 1) * 4L > table.length * 3L) {
            resize(table.length * 2);
        }
        insert(table, state);
        size++;
    }

    /** Removes {@code state}, if held. */
    void remove(ItemState<T> state) {
        ItemState<T>[] t = table;
        int mask = t.length - 1;
        int hole = home(state.item, mask);
        while (t[hole] != state) {
            if (t[hole] == null) {
                return;
            }
            hole = (hole + 1) & mask;
        }
        for (int j = (hole + 1) & mask; t[j] != null; j = (j + 1) & mask) {
            // t[j] may fill the hole when the hole lies on its probe path, between its home slot and j
            if (((j - home(t[j].item, mask)) & mask) >= ((j - hole) & mask)) {
                t[hole] = t[j];
                hole = j;
            }
        }
        t[hole] = null;
        size--;
        if (t.length > MIN_CAPACITY && size * 8L < t.length) {
            // a burst of keys does not pin its table once the queue has drained
            resize(t.length / 2);
        }
    }

    private void resize(int capacity) {
        ItemState<T>[] bigger = newTable(capacity);
        for (ItemState<T> state : table) {
            if (state != null) {
                insert(bigger, state);
            }
        }
        table = bigger;
    }

    private static <T> void insert(ItemState<T>[] t, ItemState<T> state) {
        int mask = t.length - 1;
        int i = home(state.item, mask);
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = state;
    }

    /** Fibonacci hashing: consecutive or patterned hash codes spread over the whole table. */
    private static int home(Object item, int mask) {
        int h = item.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    @SuppressWarnings("unchecked")
    private static <T> ItemState<T>[] newTable(int capacity) {
        return (ItemState<T>[]) new ItemState[capacity];
    }
}
