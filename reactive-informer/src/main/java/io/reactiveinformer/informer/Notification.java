package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import java.util.Objects;

/**
 * What an event handler is told about one object, after the informer has applied the change to its
 * cache (so a handler reading the cache sees the change or a newer one). Objects are shared with the
 * cache: treat them as read-only.
 *
 * @param <T> the object type
 */
public sealed interface Notification<T extends KubernetesObject> {

    /**
     * The object's key: {@code namespace/name}, or {@code name} for a cluster-scoped object; {@code ""}
     * for a {@link Synced} marker.
     */
    String key();

    /**
     * The object appeared in the cache.
     *
     * @param object        the object
     * @param inInitialList whether it came from the informer's first list (the initial state)
     *                      rather than from a later change
     */
    record Added<T extends KubernetesObject>(String key, T object, boolean inInitialList) implements Notification<T> {

        public Added {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(object, "object");
        }
    }

    /**
     * The object in the cache was replaced by a newer state.
     *
     * @param oldObject the state the cache held before
     * @param newObject the state it holds now
     * @param isResync  whether nothing changed: a periodic resync, or a relist that found the same
     *                  resourceVersion
     */
    record Updated<T extends KubernetesObject>(String key, T oldObject, T newObject, boolean isResync)
            implements Notification<T> {

        public Updated {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(oldObject, "oldObject");
            Objects.requireNonNull(newObject, "newObject");
        }
    }

    /**
     * The object left the cache.
     *
     * @param lastState         its final state as the watch reported it, or, when
     *                          {@code finalStateUnknown}, the last state the cache held
     * @param finalStateUnknown whether the deletion was inferred from a relist that no longer
     *                          contained the object (the watch missed the deletion), so
     *                          {@code lastState} may be stale
     */
    record Deleted<T extends KubernetesObject>(String key, T lastState, boolean finalStateUnknown)
            implements Notification<T> {

        public Deleted {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(lastState, "lastState");
        }
    }

    /**
     * Not about an object: marks the end of this subscriber's initial items. Only subscribers that
     * asked for it ({@link SubscriberOptions#withSyncMarker()}) receive it, once.
     */
    record Synced<T extends KubernetesObject>() implements Notification<T> {

        @Override
        public String key() {
            return "";
        }
    }
}
