package io.reactiveinformer.watch;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.WatchEvent;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link Reflector} observed, in order. A consumer keeping a store applies {@link Listed} as an
 * atomic replace of its whole content, {@link Applied} as an add or update, {@link Deleted} as a delete;
 * {@link Bookmark} and {@link Failed} leave the content alone.
 *
 * @param <T> the object type
 */
public sealed interface ReflectorEvent<T extends KubernetesObject> {

    /**
     * The last synced resourceVersion once this event is applied: where a re-watch resumes.
     * {@code ""} before the first successful list. For {@link Applied} and {@link Deleted}, the object's own
     * resourceVersion, {@code null} when it has none (a consumer then keeps the one it had).
     */
    String resourceVersion();

    /**
     * The complete state after a (re)list: all pages gathered, or the initial events of a streaming list.
     *
     * @param items                every object, in the server's order; immutable
     * @param resourceVersion      the state the items are consistent with
     * @param shardFilteredLocally the reflector has a {@linkplain ReflectorOptions#shardSelector() shard selector}
     *                             that the server ignores, so it drops the objects outside the shard itself
     *                             (here and in the events that follow): the items are the shard all the same
     * @param selection            the number of the {@link ShardSelection} the list was made with (1 when the
     *                             selector never changed)
     */
    record Listed<T extends KubernetesObject>(List<T> items, String resourceVersion, boolean shardFilteredLocally,
                                              long selection)
            implements ReflectorEvent<T> {
        public Listed {
            items = List.copyOf(items);
            Objects.requireNonNull(resourceVersion, "resourceVersion");
        }

        /** A list of the first selection. */
        public Listed(List<T> items, String resourceVersion, boolean shardFilteredLocally) {
            this(items, resourceVersion, shardFilteredLocally, 1);
        }

        /** A list without local shard filtering, of the first selection. */
        public Listed(List<T> items, String resourceVersion) {
            this(items, resourceVersion, false, 1);
        }
    }

    /**
     * An object was added or modified.
     *
     * @param type   {@link WatchEvent.Type#ADDED} or {@link WatchEvent.Type#MODIFIED}
     * @param object the object after the change
     */
    record Applied<T extends KubernetesObject>(WatchEvent.Type type, T object) implements ReflectorEvent<T> {
        public Applied {
            if (type != WatchEvent.Type.ADDED && type != WatchEvent.Type.MODIFIED) {
                throw new IllegalArgumentException("not an ADDED or MODIFIED event: " + type);
            }
            Objects.requireNonNull(object, "object");
        }

        /** The object's resourceVersion. */
        @Override
        public String resourceVersion() {
            return resourceVersionOf(object);
        }
    }

    /**
     * An object was deleted.
     *
     * @param object its last state
     */
    record Deleted<T extends KubernetesObject>(T object) implements ReflectorEvent<T> {
        public Deleted {
            Objects.requireNonNull(object, "object");
        }

        /** The resourceVersion of the deletion. */
        @Override
        public String resourceVersion() {
            return resourceVersionOf(object);
        }
    }

    /**
     * The server vouched that the state is complete up to a resourceVersion; nothing changed.
     *
     * @param resourceVersion the new last synced resourceVersion
     */
    record Bookmark<T extends KubernetesObject>(String resourceVersion) implements ReflectorEvent<T> {
        public Bookmark {
            Objects.requireNonNull(resourceVersion, "resourceVersion");
        }
    }

    /**
     * An attempt failed; the reflector retries on its own after {@code retryIn}. The stream of events never
     * ends with an error: this is how failures are reported, so a consumer can fail a "has synced" wait
     * with a typed error after a number of attempts (a 403 or a missing CRD's 404 repeats forever) while
     * the reflector keeps trying.
     *
     * @param error               what failed; a {@link io.reactiveinformer.api.KubernetesApiException}
     *                            subtype for an error answer, a {@link io.reactiveinformer.api.TransportException},
     *                            a {@link io.reactiveinformer.api.DecodeException}, or a
     *                            {@link ReflectorException} for what the reflector noticed itself
     * @param consecutiveFailures failures since the last successful list or the last delivered watch event, this one included
     * @param retryIn             the delay before the next attempt; zero when the reflector relists at once
     *                            with a different resourceVersion
     * @param resourceVersion     the last synced resourceVersion, unchanged by the failure
     */
    record Failed<T extends KubernetesObject>(KubernetesClientException error, int consecutiveFailures,
                                              Duration retryIn, String resourceVersion)
            implements ReflectorEvent<T> {
        public Failed {
            Objects.requireNonNull(error, "error");
            Objects.requireNonNull(retryIn, "retryIn");
            Objects.requireNonNull(resourceVersion, "resourceVersion");
        }
    }

    private static String resourceVersionOf(KubernetesObject object) {
        V1ObjectMeta metadata = object.getMetadata();
        return metadata == null ? null : metadata.getResourceVersion();
    }
}
