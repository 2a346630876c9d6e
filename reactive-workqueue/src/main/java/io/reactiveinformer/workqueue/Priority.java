package io.reactiveinformer.workqueue;

/**
 * The priority of an add: a queue hands out higher priorities first and, within one priority, the
 * item that entered that priority first.
 *
 * <p>An item is queued at most once: re-adding an item that is already waiting keeps the highest
 * priority any of its adds asked for (and, for delayed adds, the earliest ready time), like
 * controller-runtime's priority queue.
 *
 * @param value the priority; higher is handed out first
 */
public record Priority(int value) implements Comparable<Priority> {

    /** The priority of plain adds. */
    public static final Priority NORMAL = new Priority(0);

    /** Below {@link #NORMAL}: for bulk work such as the initial list of an informer. */
    public static final Priority LOW = new Priority(-100);

    /** Above {@link #NORMAL}. */
    public static final Priority HIGH = new Priority(100);

    /** A priority of the given value. */
    public static Priority of(int value) {
        return value == 0 ? NORMAL : new Priority(value);
    }

    @Override
    public int compareTo(Priority other) {
        return Integer.compare(value, other.value);
    }
}
