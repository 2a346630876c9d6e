package io.reactiveinformer.e2e.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.informer.Notification;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What one subscriber was told, folded into the map of objects it implies, plus enough history to check
 * that it missed no final state: for every key, the resourceVersion of the last state it was handed and
 * its last deletion. Thread-safe (a subscriber's signals arrive on a delivery worker, checks run elsewhere).
 */
public final class NotificationLog<T extends KubernetesObject> implements Consumer<Notification<T>> {

    private final Map<String, T> view = new HashMap<>();
    /** key → the sequence number of the last add or update. */
    private final Map<String, Long> lastShown = new HashMap<>();
    /** key → resourceVersion of the last state handed as an add or update. */
    private final Map<String, Long> lastShownVersion = new HashMap<>();
    private final Map<String, Notification.Deleted<T>> deletions = new HashMap<>();
    /** key → the sequence number of the last deletion. */
    private final Map<String, Long> lastDeleted = new HashMap<>();
    private long count;
    private long changes;

    @Override
    public synchronized void accept(Notification<T> n) {
        long sequence = ++count;
        if (!(n instanceof Notification.Updated<T> u && u.isResync())) {
            changes++;
        }
        if (n instanceof Notification.Added<T> a) {
            shown(a.key(), a.object(), sequence);
        } else if (n instanceof Notification.Updated<T> u) {
            shown(u.key(), u.newObject(), sequence);
        } else {
            Notification.Deleted<T> d = (Notification.Deleted<T>) n;
            view.remove(d.key());
            deletions.put(d.key(), d);
            lastDeleted.put(d.key(), sequence);
        }
    }

    private void shown(String key, T object, long sequence) {
        view.put(key, object);
        lastShown.put(key, sequence);
        lastShownVersion.put(key, version(object));
    }

    /** The objects the subscriber believes exist. */
    public synchronized List<T> view() {
        return new ArrayList<>(view.values());
    }

    synchronized long count() {
        return count;
    }

    /** Notifications other than resyncs (which a relist finding an object unchanged also produces). */
    synchronized long changes() {
        return changes;
    }

    /** The last deletion notified for {@code key}, or {@code null}. */
    synchronized Notification.Deleted<T> deletion(String key) {
        return deletions.get(key);
    }

    /** Every key ever handed as an add or update. */
    public synchronized Set<String> shownKeys() {
        return Set.copyOf(lastShown.keySet());
    }

    /** Every key this subscriber was told anything about. */
    synchronized Set<String> keys() {
        Set<String> keys = new java.util.HashSet<>(lastShown.keySet());
        keys.addAll(deletions.keySet());
        return keys;
    }

    /**
     * What this subscriber got wrong about objects that no longer exist: each key it was shown, that is
     * absent from {@code listed} (the keys of a fresh LIST), and for which it was not told of a deletion
     * after the last state it saw, or was told with a last state older than that one. Empty when it missed
     * no deletion.
     */
    public synchronized List<String> missedDeletions(Collection<String> listed) {
        Set<String> present = Set.copyOf(listed);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Long> shown : lastShown.entrySet()) {
            String key = shown.getKey();
            if (present.contains(key)) {
                continue;
            }
            Long deletedAt = lastDeleted.get(key);
            if (deletedAt == null || deletedAt < shown.getValue()) {
                problems.add(key + ": no deletion after its last state");
                continue;
            }
            long deletedVersion = version(deletions.get(key).lastState());
            if (deletedVersion < lastShownVersion.get(key)) {
                problems.add(key + ": deleted with state " + deletedVersion + " older than the shown "
                        + lastShownVersion.get(key));
            }
        }
        return problems;
    }

    static long version(KubernetesObject object) {
        return Long.parseLong(object.getMetadata().getResourceVersion());
    }
}
