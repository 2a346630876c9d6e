package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import java.util.ArrayDeque;
import java.util.HashMap;

/**
 * The notifications one subscriber has not received yet, held according to its {@link BufferPolicy},
 * plus at most one {@link #SYNCED} marker: the point after which the subscriber has seen the informer's
 * initial state. Not thread-safe: its {@link SubscriberBuffer} guards it.
 */
abstract class PendingNotifications<T extends KubernetesObject> {

    /** Stands in the queue for "everything before me is the initial state". */
    static final Object SYNCED = new Object() {
        @Override
        public String toString() {
            return "SYNCED";
        }
    };

    static <T extends KubernetesObject> PendingNotifications<T> of(SubscriberOptions options) {
        return options.policy() == BufferPolicy.COALESCE
                ? new Coalescing<>()
                : new Queued<>(options.policy() == BufferPolicy.BOUNDED ? options.capacity() : Integer.MAX_VALUE);
    }

    /** Adds {@code n}; {@code false} when that would exceed the capacity (nothing is added then). */
    abstract boolean offer(Notification<T> n);

    abstract void offerSynced();

    /** The next notification or {@link #SYNCED}, without removing it; {@code null} when empty. */
    abstract Object peek();

    /** Removes what {@link #peek()} returned. */
    abstract void remove();

    /** Pending notifications (for {@link BufferPolicy#COALESCE}: pending keys). */
    abstract int depth();

    abstract void clear();

    /** Every notification in order; {@link BufferPolicy#UNBOUNDED} and {@link BufferPolicy#BOUNDED}. */
    static final class Queued<T extends KubernetesObject> extends PendingNotifications<T> {

        private final ArrayDeque<Object> queue = new ArrayDeque<>();
        private final int capacity;
        private int depth;

        Queued(int capacity) {
            this.capacity = capacity;
        }

        @Override
        boolean offer(Notification<T> n) {
            if (depth >= capacity) {
                return false;
            }
            queue.offer(n);
            depth++;
            return true;
        }

        @Override
        void offerSynced() {
            queue.offer(SYNCED);
        }

        @Override
        Object peek() {
            return queue.peek();
        }

        @Override
        void remove() {
            if (queue.poll() != SYNCED) {
                depth--;
            }
        }

        @Override
        int depth() {
            return depth;
        }

        @Override
        void clear() {
            queue.clear();
            depth = 0;
        }
    }

    /**
     * One slot per key, in the order keys first became pending; see {@link BufferPolicy#COALESCE} for
     * the merge rules. A slot holds a pending deletion, a pending add or update, or a deletion followed
     * by a re-creation. The order is a queue beside the map, rather than a {@code LinkedHashMap}, so
     * that reading and removing the head allocates nothing: this runs once per notification and
     * subscriber, the offers under the informer's fan-out lock.
     */
    static final class Coalescing<T extends KubernetesObject> extends PendingNotifications<T> {

        private static final class Slot<T extends KubernetesObject> {
            final String key;
            Notification.Deleted<T> deleted;
            Notification<T> current;

            Slot(String key) {
                this.key = key;
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

        @Override
        boolean offer(Notification<T> n) {
            Slot<T> slot = slots.get(n.key());
            if (slot == null) {
                slot = new Slot<>(n.key());
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
        void offerSynced() {
            if (!syncedPending) {
                syncedPending = true;
                order.offer(SYNCED);
            }
        }

        @Override
        Object peek() {
            Object head = order.peek();
            return head == null || head == SYNCED ? head : ((Slot<?>) head).head();
        }

        @Override
        void remove() {
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
        int depth() {
            return slots.size();
        }

        @Override
        void clear() {
            order.clear();
            slots.clear();
            syncedPending = false;
        }
    }
}
