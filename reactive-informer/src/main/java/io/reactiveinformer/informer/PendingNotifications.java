package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.cache.ObjectKeys;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.function.Supplier;

/**
 * What one subscriber has not received yet: first the informer's state when it joined (a snapshot of
 * the cache, read one object at a time as the subscriber takes it, optionally followed by the
 * {@link #SYNCED} marker), then the live notifications offered since, held according to its
 * {@link BufferPolicy}, with at most one more {@link #SYNCED} marker: the point after which the
 * subscriber has seen the informer's initial state.
 *
 * <p>The snapshot is a list the apply loop already holds, not a copy per subscriber: every subscriber
 * joining at the same point shares it, and turning it into notifications happens on the subscriber's
 * drain task, as demand allows. It does not count against a {@link BufferPolicy#BOUNDED} capacity: it is
 * the cache, not a backlog.
 *
 * <p>Each entry keeps the time it was offered (on the informer's clock, in nanoseconds), so that
 * {@link #oldestNanos()} tells how long the oldest undelivered notification has waited.
 *
 * <p>Not thread-safe: its {@link SubscriberBuffer} guards it.
 */
abstract class PendingNotifications<T extends KubernetesObject> {

    /** Stands in the queue for "everything before me is the initial state". */
    static final Object SYNCED = new Object() {
        @Override
        public String toString() {
            return "SYNCED";
        }
    };

    /** {@link #oldestNanos()} when nothing is pending. */
    static final long NONE = Long.MAX_VALUE;

    private Supplier<List<T>> snapshotSource;
    private List<T> snapshot;
    private int snapshotNext;
    private Notification<T> snapshotHead;
    private long snapshotNanos;
    private boolean syncedAfterSnapshot;

    static <T extends KubernetesObject> PendingNotifications<T> of(SubscriberOptions options) {
        return options.policy() == BufferPolicy.COALESCE
                ? new Coalescing<>()
                : new Queued<>(options.policy() == BufferPolicy.BOUNDED ? options.capacity() : Integer.MAX_VALUE);
    }

    /**
     * Puts the informer's state ahead of everything offered later: each object of {@code cache} as an
     * {@link Notification.Added} flagged in-initial-list, then the {@link #SYNCED} marker if
     * {@code synced}. {@code cache} is read at the first {@link #peek()}.
     */
    final void offerSnapshot(Supplier<List<T>> cache, boolean synced, long nanos) {
        snapshotSource = cache;
        snapshotNanos = nanos;
        syncedAfterSnapshot = synced;
    }

    /** Adds {@code n}, offered at {@code nanos}; {@code false} when that would exceed the capacity (nothing is added then). */
    abstract boolean offer(Notification<T> n, long nanos);

    abstract void offerSynced(long nanos);

    /** The next notification or {@link #SYNCED}, without removing it; {@code null} when empty. */
    final Object peek() {
        if (snapshotSource != null) {
            snapshot = snapshotSource.get();
            snapshotSource = null;
        }
        if (snapshot != null) {
            if (snapshotNext < snapshot.size()) {
                if (snapshotHead == null) {
                    T object = snapshot.get(snapshotNext);
                    snapshotHead = new Notification.Added<>(ObjectKeys.keyOf(object), object, true);
                }
                return snapshotHead;
            }
            snapshot = null;
        }
        return syncedAfterSnapshot ? SYNCED : peekLive();
    }

    /** Removes what {@link #peek()} returned. */
    final void remove() {
        if (snapshot != null) {
            snapshotNext++;
            snapshotHead = null;
        } else if (syncedAfterSnapshot) {
            syncedAfterSnapshot = false;
        } else {
            removeLive();
        }
    }

    /** Pending notifications, the unread part of the snapshot included (for {@link BufferPolicy#COALESCE}: keys). */
    final int depth() {
        return liveDepth() + (snapshot == null ? 0 : snapshot.size() - snapshotNext);
    }

    /** Whether part of the initial state (its objects or the marker after them) is still to be handed over. */
    final boolean inInitialState() {
        return snapshotSource != null || snapshot != null || syncedAfterSnapshot;
    }

    /** When the oldest pending notification was offered; {@link #NONE} when nothing is pending. */
    final long oldestNanos() {
        return inInitialState() ? snapshotNanos : oldestLiveNanos();
    }

    final void clear() {
        snapshotSource = null;
        snapshot = null;
        snapshotHead = null;
        syncedAfterSnapshot = false;
        clearLive();
    }

    abstract Object peekLive();

    abstract void removeLive();

    /** Pending live notifications: what a {@link BufferPolicy#BOUNDED} capacity counts. */
    abstract int liveDepth();

    abstract long oldestLiveNanos();

    abstract void clearLive();

    /** Every notification in order; {@link BufferPolicy#UNBOUNDED} and {@link BufferPolicy#BOUNDED}. */
    static final class Queued<T extends KubernetesObject> extends PendingNotifications<T> {

        /** A ring of entries and their offer times, side by side: no boxing, no node per entry. */
        private Object[] entries = new Object[16];
        private long[] times = new long[16];
        private int head;
        private int size;
        private final int capacity;
        private int depth;

        Queued(int capacity) {
            this.capacity = capacity;
        }

        @Override
        boolean offer(Notification<T> n, long nanos) {
            if (depth >= capacity) {
                return false;
            }
            append(n, nanos);
            depth++;
            return true;
        }

        @Override
        void offerSynced(long nanos) {
            append(SYNCED, nanos);
        }

        private void append(Object entry, long nanos) {
            if (size == entries.length) {
                grow();
            }
            int tail = (head + size) & (entries.length - 1);
            entries[tail] = entry;
            times[tail] = nanos;
            size++;
        }

        /** Doubles the ring (full, so its content runs from {@code head} round to {@code head - 1}), in order from 0. */
        private void grow() {
            int n = entries.length;
            Object[] grownEntries = new Object[n * 2];
            long[] grownTimes = new long[n * 2];
            System.arraycopy(entries, head, grownEntries, 0, n - head);
            System.arraycopy(entries, 0, grownEntries, n - head, head);
            System.arraycopy(times, head, grownTimes, 0, n - head);
            System.arraycopy(times, 0, grownTimes, n - head, head);
            entries = grownEntries;
            times = grownTimes;
            head = 0;
        }

        @Override
        Object peekLive() {
            return size == 0 ? null : entries[head];
        }

        @Override
        void removeLive() {
            if (entries[head] != SYNCED) {
                depth--;
            }
            entries[head] = null;
            head = (head + 1) & (entries.length - 1);
            size--;
        }

        @Override
        int liveDepth() {
            return depth;
        }

        @Override
        long oldestLiveNanos() {
            return size == 0 ? NONE : times[head];
        }

        @Override
        void clearLive() {
            Arrays.fill(entries, null);
            head = 0;
            size = 0;
            depth = 0;
        }
    }

    /**
     * One slot per key, in the order keys first became pending; see {@link BufferPolicy#COALESCE} for
     * the merge rules. A slot holds a pending deletion, a pending add or update, or a deletion followed
     * by a re-creation. The order is a queue beside the map, rather than a {@code LinkedHashMap}, so
     * that reading and removing the head allocates nothing: this runs once per notification and
     * subscriber, the offers on the informer's apply loop. A slot keeps when its key first became
     * pending: the age of its oldest change.
     */
    static final class Coalescing<T extends KubernetesObject> extends PendingNotifications<T> {

        private static final class Slot<T extends KubernetesObject> {
            final String key;
            final long nanos;
            Notification.Deleted<T> deleted;
            Notification<T> current;

            Slot(String key, long nanos) {
                this.key = key;
                this.nanos = nanos;
            }

            Object head() {
                return deleted != null ? deleted : current;
            }
        }

        /** The pending slots and the {@link #SYNCED} marker, in order. */
        private final ArrayDeque<Object> order = new ArrayDeque<>();
        /** The pending slots by key. */
        private final HashMap<String, Slot<T>> slots = new HashMap<>();
        private boolean syncedPending;
        private long syncedNanos;

        @Override
        boolean offer(Notification<T> n, long nanos) {
            Slot<T> slot = slots.get(n.key());
            if (slot == null) {
                slot = new Slot<>(n.key(), nanos);
                slots.put(n.key(), slot);
                order.offer(slot);
            }
            merge(slot, n);
            return true;
        }

        private static <T extends KubernetesObject> void merge(Slot<T> slot, Notification<T> n) {
            Notification<T> current = slot.current;
            if (n instanceof Notification.Deleted<T> deleted) {
                slot.current = null;
                if (slot.deleted == null) {
                    slot.deleted = deleted;
                }
                // else: the subscriber knew the object the pending deletion removes; the re-created one
                // it never saw is gone again, so that deletion already says everything.
            } else if (current == null) {
                slot.current = n;
            } else if (n instanceof Notification.Updated<T> updated) {
                slot.current = current instanceof Notification.Added<T> added
                        ? new Notification.Added<>(n.key(), updated.newObject(), added.inInitialList())
                        : new Notification.Updated<>(n.key(), ((Notification.Updated<T>) current).oldObject(),
                                updated.newObject(), ((Notification.Updated<T>) current).isResync() && updated.isResync());
            } else {
                // An add while an add or update is pending cannot come from the informer (it adds only
                // absent keys); keep the newest state without losing what the subscriber was told.
                Notification.Added<T> added = (Notification.Added<T>) n;
                slot.current = current instanceof Notification.Updated<T> u
                        ? new Notification.Updated<>(n.key(), u.oldObject(), added.object(), false)
                        : added;
            }
        }

        @Override
        void offerSynced(long nanos) {
            if (!syncedPending) {
                syncedPending = true;
                syncedNanos = nanos;
                order.offer(SYNCED);
            }
        }

        @Override
        Object peekLive() {
            Object head = order.peek();
            return head == null || head == SYNCED ? head : ((Slot<?>) head).head();
        }

        @Override
        void removeLive() {
            Object head = order.peek();
            if (head == SYNCED) {
                order.poll();
                syncedPending = false;
                return;
            }
            Slot<?> slot = (Slot<?>) head;
            if (slot.deleted != null && slot.current != null) {
                slot.deleted = null;
            } else {
                order.poll();
                slots.remove(slot.key);
            }
        }

        @Override
        int liveDepth() {
            return slots.size();
        }

        @Override
        long oldestLiveNanos() {
            Object head = order.peek();
            return head == null ? NONE : head == SYNCED ? syncedNanos : ((Slot<?>) head).nanos;
        }

        @Override
        void clearLive() {
            order.clear();
            slots.clear();
            syncedPending = false;
        }
    }
}
