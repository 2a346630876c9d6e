package io.reactiveinformer.test.server;

import java.util.NavigableMap;
import tools.jackson.databind.node.ObjectNode;

/**
 * The retained changes of one resource, oldest first, in a ring of fixed capacity: the compaction
 * window of that resource alone, so churn in one kind never expires a quiet kind's watches (the
 * real server keeps one watch cache per resource type). Guarded by the state's lock.
 */
final class History {

    private final Change[] ring;
    private int start;
    private int size;
    /** Changes of this resource up to this version are gone. */
    private long compactedTo;

    History(int capacity, long compactedTo) {
        this.ring = new Change[capacity];
        this.compactedTo = compactedTo;
    }

    /** The newest version whose changes are gone: a watch or an exact LIST must start at or after it. */
    long compactedTo() {
        return compactedTo;
    }

    void append(Change change) {
        if (size == ring.length) {
            compactedTo = Math.max(compactedTo, ring[start].resourceVersion());
            ring[start] = null;
            start = (start + 1) % ring.length;
            size--;
        }
        ring[(start + size) % ring.length] = change;
        size++;
    }

    /** Drops every change up to {@code resourceVersion}, like an etcd compaction. */
    void compact(long resourceVersion) {
        while (size > 0 && get(0).resourceVersion() <= resourceVersion) {
            ring[start] = null;
            start = (start + 1) % ring.length;
            size--;
        }
        compactedTo = Math.max(compactedTo, resourceVersion);
    }

    /** Turns {@code objects} (the current ones) into those at {@code resourceVersion} by undoing newer changes. */
    void undo(NavigableMap<String, ObjectNode> objects, long resourceVersion) {
        for (int i = size - 1; i >= 0 && get(i).resourceVersion() > resourceVersion; i--) {
            Change change = get(i);
            if (change.previous() == null) {
                objects.remove(change.key());
            } else {
                objects.put(change.key(), change.previous());
            }
        }
    }

    int size() {
        return size;
    }

    /** The {@code i}th retained change, oldest first. */
    Change get(int i) {
        return ring[(start + i) % ring.length];
    }

    /** The index of the first retained change newer than {@code resourceVersion} ({@link #size()} if none). */
    int firstAfter(long resourceVersion) {        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (get(mid).resourceVersion() <= resourceVersion) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
