package io.reactiveinformer.api;

import java.util.Objects;

/**
 * One event of a watch stream. {@code ERROR} events never appear here: the watch {@code Flux}
 * terminates with a {@link KubernetesApiException} built from the event's {@code Status} instead.
 *
 * @param type   what happened
 * @param object the object after the change; for {@link Type#DELETED} its last state; for
 *               {@link Type#BOOKMARK} an object whose metadata carries only the resourceVersion
 *               (and, for streaming lists, the {@code k8s.io/initial-events-end} annotation)
 * @param <T>    the object type
 */
public record WatchEvent<T>(Type type, T object) {

    /** The watch event types the API server sends, less {@code ERROR}. */
    public enum Type {
        ADDED, MODIFIED, DELETED, BOOKMARK
    }

    public WatchEvent {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(object, "object");
    }
}
