package io.reactiveinformer.reliability;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.informer.Notification;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * What one subscriber believes the cluster holds, built from its notifications alone.
 *
 * <p>Threading: notifications arrive on the informer's delivery threads; reads come from the runner.
 */
final class SubscriberView<T extends KubernetesObject> implements Consumer<Notification<T>> {

    final String name;
    private final Map<String, T> objects = new ConcurrentHashMap<>();

    SubscriberView(String name) {
        this.name = name;
    }

    @Override
    public void accept(Notification<T> notification) {
        if (notification instanceof Notification.Added<T> added) {
            objects.put(added.key(), added.object());
        } else if (notification instanceof Notification.Updated<T> updated) {
            objects.put(updated.key(), updated.newObject());
        } else if (notification instanceof Notification.Deleted<T> deleted) {
            objects.remove(deleted.key());
        }
    }

    /** Forgets everything: the subscriber starts over (a new subscription receives the whole cache again). */
    void clear() {
        objects.clear();
    }

    List<T> objects() {
        return List.copyOf(objects.values());
    }
}
