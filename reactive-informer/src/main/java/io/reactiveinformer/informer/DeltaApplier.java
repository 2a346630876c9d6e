package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.cache.ConcurrentIndexer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The informer's "handle deltas" step: applies one {@link FifoEntry} to the cache and says what
 * handlers must be told. An object present in the cache after a non-deletion delta is an update
 * (an {@link DeltaType#UPDATED} for an unknown key is an add, and vice versa), a deletion of a key
 * the cache no longer holds is dropped, and a relist swaps the cache in one step and then reports
 * deletions (final state unknown) for vanished keys followed by updates and adds in list order.
 *
 * <p>Not thread-safe: it is the cache's single writer, called by the {@link ApplyLoop} on the
 * {@link DeltaFifo}'s drain loop.
 */
final class DeltaApplier<T extends KubernetesObject> {

    private final ConcurrentIndexer<T> indexer;

    DeltaApplier(ConcurrentIndexer<T> indexer) {
        this.indexer = Objects.requireNonNull(indexer, "indexer");
    }

    /** Applies {@code entry} to the cache; the notifications, in the order handlers must see them. */
    List<Notification<T>> apply(FifoEntry<T> entry) {
        if (entry instanceof FifoEntry.Deltas<T> deltas) {
            List<Delta<T>> pending = deltas.deltas();
            if (pending.size() == 1) { // most entries: no list to grow
                Notification<T> notification = applyDelta(deltas.key(), pending.get(0));
                return notification == null ? List.of() : List.of(notification);
            }
            List<Notification<T>> notifications = new ArrayList<>(pending.size());
            for (int i = 0; i < pending.size(); i++) {
                Notification<T> notification = applyDelta(deltas.key(), pending.get(i));
                if (notification != null) {
                    notifications.add(notification);
                }
            }
            return notifications;
        }
        return applyReplace((FifoEntry.Replace<T>) entry);
    }

    /** Applies {@code delta} to the cache; what handlers are told, {@code null} for a deletion of an uncached key. */
    private Notification<T> applyDelta(String key, Delta<T> delta) {
        if (delta.type() == DeltaType.DELETED) {
            T old = indexer.delete(key).orElse(null);
            return old == null ? null : notification(key, delta, old);
        }
        return notification(key, delta, indexer.put(key, delta.object()).orElse(null));
    }

    /*
     * A relist swaps the cache in one step, then becomes a deletion with unknown final state per vanished key
     * (its last known state is the cache's), and an add or update per listed object; an update whose object
     * kept its resourceVersion is a resync.
     */
    private List<Notification<T>> applyReplace(FifoEntry.Replace<T> replace) {
        Map<String, T> items = replace.items();
        Map<String, T> previous = indexer.replaceAll(items);
        List<Notification<T>> notifications = new ArrayList<>(items.size() + 16);
        previous.forEach((key, old) -> {
            if (!items.containsKey(key)) {
                notifications.add(new Notification.Deleted<>(key, old, true));
            }
        });
        items.forEach((key, object) -> {
            T old = previous.get(key);
            notifications.add(old == null
                    ? new Notification.Added<>(key, object, replace.initial())
                    : new Notification.Updated<>(key, old, object, sameVersion(old, object)));
        });
        return notifications;
    }

    /** What handlers are told about a watch or resync {@code delta}, given what the cache held before it ({@code null}: none). */
    private static <T extends KubernetesObject> Notification<T> notification(String key, Delta<T> delta, T old) {
        if (delta.type() == DeltaType.DELETED) {
            return new Notification.Deleted<>(key, delta.object(), false);
        }
        return old == null
                ? new Notification.Added<>(key, delta.object(), false)
                : new Notification.Updated<>(key, old, delta.object(), delta.type() == DeltaType.SYNC);
    }

    /** Whether both have the same, non-null resourceVersion: the same state on the server. */
    static <T extends KubernetesObject> boolean sameVersion(T old, T object) {
        String oldVersion = old.getMetadata().getResourceVersion();
        return oldVersion != null && oldVersion.equals(object.getMetadata().getResourceVersion());
    }
}
