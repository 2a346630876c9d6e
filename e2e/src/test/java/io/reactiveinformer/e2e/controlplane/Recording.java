package io.reactiveinformer.e2e.controlplane;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.informer.Notification;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Every notification one subscriber was handed, in order, for checks of what a controller did and in which
 * order. Thread-safe: notifications arrive on a delivery worker, checks run on the test thread.
 */
final class Recording<T extends KubernetesObject> implements Consumer<Notification<T>> {

    private final List<Notification<T>> seen = new ArrayList<>();

    @Override
    public synchronized void accept(Notification<T> notification) {
        seen.add(notification);
    }

    /** The new state of every update that is not a resync, in order; of {@code key} only, unless null. */
    synchronized List<T> updates(String key) {
        return seen.stream()
                .filter(n -> n instanceof Notification.Updated<T> u && !u.isResync() && (key == null || key.equals(u.key())))
                .map(n -> ((Notification.Updated<T>) n).newObject())
                .toList();
    }

    /** Every deletion, in order. */
    synchronized List<Notification.Deleted<T>> deletions() {
        return seen.stream()
                .filter(n -> n instanceof Notification.Deleted<T>)
                .map(n -> (Notification.Deleted<T>) n)
                .toList();
    }
}
