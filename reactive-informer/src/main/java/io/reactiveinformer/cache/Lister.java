package io.reactiveinformer.cache;

import io.kubernetes.client.common.KubernetesObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Typed, read-only queries over an informer's cache (client-go's generated listers): all objects,
 * by label selector, by name, or scoped to a namespace with {@link #namespace(String)}.
 * Thread-safe and non-blocking, with the consistency of the {@link Indexer} it reads.
 * Returned objects are shared with the cache: do not mutate them.
 *
 * @param <T> the object type
 */
public final class Lister<T extends KubernetesObject> {

    private final Indexer<T> indexer;

    public Lister(Indexer<T> indexer) {
        this.indexer = Objects.requireNonNull(indexer, "indexer");
    }

    /** Every cached object. */
    public List<T> list() {
        return indexer.list();
    }

    /** The cached objects whose labels match {@code selector}. */
    public List<T> list(LabelSelector selector) {
        return filter(indexer.list(), selector);
    }

    /** The cluster-scoped object named {@code name}; use {@link #namespace(String)} for namespaced ones. */
    public Optional<T> get(String name) {
        return indexer.getByKey(name);
    }

    /** The same queries restricted to one namespace, served by the namespace index. */
    public NamespaceLister<T> namespace(String namespace) {
        return new NamespaceLister<>(indexer, namespace);
    }

    static <T extends KubernetesObject> List<T> filter(List<T> objects, LabelSelector selector) {
        if (selector.isEverything()) {
            return objects;
        }
        List<T> matching = new ArrayList<>();
        for (T object : objects) {
            if (selector.matches(object.getMetadata().getLabels())) {
                matching.add(object);
            }
        }
        return matching;
    }
}
