package io.reactiveinformer.cache;

import io.kubernetes.client.common.KubernetesObject;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The read side of an informer's cache: objects by key, plus named secondary indices
 * (client-go's {@code Indexer}). The informer is the only writer; this view cannot change the content.
 *
 * <p><b>Threading.</b> Every method may be called from any thread, concurrently with the informer's
 * writes, and never waits for a write to finish. Each query sees a state at least as new as the last
 * write that completed before it started. A relist swaps the whole content in one step, so a query
 * sees either the content before the relist or after it, never a mix. A query that spans several
 * objects ({@link #list()}, {@link #byIndex}) may observe single-object writes made while it runs.
 *
 * <p><b>Objects are shared.</b> Returned objects are the cached instances: treat them as read-only.
 * Returned collections are fresh snapshots the caller owns.
 *
 * @param <T> the object type
 */
public interface Indexer<T extends KubernetesObject> {

    /** The name of the built-in index from namespace to the keys of the objects in it. */
    String NAMESPACE_INDEX = "namespace";

    /** The cached object with the same key as {@code object}. */
    default Optional<T> get(T object) {
        return getByKey(ObjectKeys.keyOf(object));
    }

    /** The cached object under {@code key} ({@code namespace/name} or {@code name}). */
    Optional<T> getByKey(String key);

    /** Whether an object is cached under {@code key}. */
    boolean containsKey(String key);

    /** All cached objects, in no particular order. */
    List<T> list();

    /** The keys of all cached objects, in no particular order. */
    List<String> listKeys();

    /** How many objects are cached. */
    int size();

    /**
     * The objects indexed under {@code value} by the index {@code indexName}.
     *
     * @throws IllegalArgumentException when no index has that name
     */
    List<T> byIndex(String indexName, String value);

    /**
     * The keys of the objects indexed under {@code value} by the index {@code indexName}.
     *
     * @throws IllegalArgumentException when no index has that name
     */
    List<String> indexKeys(String indexName, String value);

    /**
     * The objects that share at least one value of index {@code indexName} with {@code object}
     * (which need not be cached), each once.
     *
     * @throws IllegalArgumentException when no index has that name
     */
    List<T> index(String indexName, T object);

    /**
     * The values index {@code indexName} currently holds objects under.
     *
     * @throws IllegalArgumentException when no index has that name
     */
    List<String> indexValues(String indexName);

    /** The names of the indices, the built-in {@value #NAMESPACE_INDEX} included. */
    List<String> indexNames();

    /**
     * Adds indices. Objects already cached are indexed before this returns; a query sees a new index
     * only once it is complete.
     *
     * @throws IllegalArgumentException when a name is already taken
     */
    void addIndexers(Map<String, IndexFunction<T>> indexers);
}
