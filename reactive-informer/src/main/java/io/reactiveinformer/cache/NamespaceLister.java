package io.reactiveinformer.cache;

import io.kubernetes.client.common.KubernetesObject;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link Lister} scoped to one namespace. Listing costs the size of the namespace, not of the
 * cache, because it reads the built-in {@value Indexer#NAMESPACE_INDEX} index.
 *
 * @param <T> the object type
 */
public final class NamespaceLister<T extends KubernetesObject> {

    private final Indexer<T> indexer;
    private final String namespace;

    NamespaceLister(Indexer<T> indexer, String namespace) {
        this.indexer = indexer;
        this.namespace = Objects.requireNonNull(namespace, "namespace");
    }

    /** Every cached object in the namespace. */
    public List<T> list() {
        return indexer.byIndex(Indexer.NAMESPACE_INDEX, namespace);
    }

    /** The cached objects in the namespace whose labels match {@code selector}. */
    public List<T> list(LabelSelector selector) {
        return Lister.filter(list(), selector);
    }

    /** The object named {@code name} in the namespace. */
    public Optional<T> get(String name) {
        return indexer.getByKey(ObjectKeys.key(namespace, name));
    }
}
