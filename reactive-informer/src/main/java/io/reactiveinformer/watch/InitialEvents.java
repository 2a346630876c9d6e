package io.reactiveinformer.watch;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.cache.ObjectKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The initial events of one streaming list, keyed like a store so that a MODIFIED or DELETED among them
 * (which servers do not send, but nothing forbids) still yields the right state, up to the
 * {@value #INITIAL_EVENTS_END} bookmark; each object is interned as it arrives (see
 * {@link Reflector.Builder#interner}). Not thread-safe: the streaming list's signals feed it one at a time.
 */
final class InitialEvents<T extends KubernetesObject> {

    static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";

    private final UnaryOperator<T> interner;
    private Map<String, T> objects = new LinkedHashMap<>();
    String resourceVersion;

    InitialEvents(UnaryOperator<T> interner) {
        this.interner = interner;
    }

    boolean isComplete() {
        return objects == null;
    }

    /** Takes one event; {@code true} when it was the bookmark that ends the initial events. */
    boolean offer(WatchEvent<T> event) {
        T object = event.object();
        switch (event.type()) {
            case ADDED, MODIFIED -> objects.put(key(object), interner.apply(object));
            case DELETED -> objects.remove(key(object));
            case BOOKMARK -> {
                V1ObjectMeta metadata = object.getMetadata();
                if (metadata != null && metadata.getAnnotations() != null
                        && "true".equals(metadata.getAnnotations().get(INITIAL_EVENTS_END))) {
                    resourceVersion = metadata.getResourceVersion() == null ? "" : metadata.getResourceVersion();
                    return true;
                }
            }
        }
        return false;
    }

    /** The gathered objects; releases them so the stream that continues as a watch does not hold them. */
    List<T> drain() {
        List<T> items = new ArrayList<>(objects.values());
        objects = null;
        return items;
    }

    /** The store key; an object without a name is not rejected here (the FIFO drops and reports it). */
    private static String key(KubernetesObject object) {
        V1ObjectMeta metadata = object.getMetadata();
        return metadata == null ? "" : ObjectKeys.key(metadata.getNamespace(), metadata.getName());
    }
}
