package io.reactiveinformer.cache;

import io.kubernetes.client.common.KubernetesObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The informer's cache: an {@link Indexer} plus the writes the informer applies to it.
 *
 * <p><b>Threading.</b> Built for one writer (the informer's apply loop) and many readers.
 * The content (objects by key and the indices) lives in one {@link Content} reached through a
 * volatile field. Objects sit in a {@link ConcurrentHashMap} and every index value maps to a
 * concurrent key set, so a read takes no lock and never waits for a writer: readers cost what
 * a {@code ConcurrentHashMap} lookup costs, and a write costs a put plus the index sets whose
 * values changed. A copy-on-write design would make each write in a large namespace copy that
 * namespace's key set, and a {@code StampedLock} would make readers retry while the writer is
 * busy, which is most of the time during a relist burst. {@link #replaceAll} builds a new
 * {@code Content} off to the side and publishes it with a single volatile write, so readers see
 * the old or the new content and never a mix. Writes, including {@link #addIndexers} from a user
 * thread, serialize on a private monitor that readers never touch; it is uncontended in
 * steady state because there is one writer.
 *
 * <p>Index functions run on the writer thread. One that throws (or returns {@code null}) for an object is
 * reported to the {@link IndexFailureListener} and the object is cached without values in that index:
 * the cache keeps every object the server has, and only that index misses it.
 *
 * @param <T> the object type
 */
public final class ConcurrentIndexer<T extends KubernetesObject> implements Indexer<T> {

    /** The objects and indices at one point in time; replaced as a whole by a relist. */
    private record Content<T>(ConcurrentHashMap<String, T> items, Map<String, Index<T>> indices, List<Index<T>> all) {

        Content(ConcurrentHashMap<String, T> items, Map<String, Index<T>> indices) {
            this(items, Map.copyOf(indices), List.copyOf(indices.values()));
        }
    }

    private final Object writeLock = new Object();
    private final IndexFailureListener onIndexFailure;
    private volatile Content<T> content;

    /** A cache with only the built-in {@value #NAMESPACE_INDEX} index. */
    public ConcurrentIndexer() {
        this(Map.of());
    }

    /**
     * A cache with the built-in {@value #NAMESPACE_INDEX} index plus {@code indexers}; index function
     * failures are ignored (the object is cached, unindexed).
     *
     * @throws IllegalArgumentException when a name is {@value #NAMESPACE_INDEX}
     */
    public ConcurrentIndexer(Map<String, IndexFunction<T>> indexers) {
        this(indexers, IndexFailureListener.ignore());
    }

    /**
     * A cache with the built-in {@value #NAMESPACE_INDEX} index plus {@code indexers}, reporting index
     * function failures to {@code onIndexFailure}.
     *
     * @throws IllegalArgumentException when a name is {@value #NAMESPACE_INDEX}
     */
    public ConcurrentIndexer(Map<String, IndexFunction<T>> indexers, IndexFailureListener onIndexFailure) {
        this.onIndexFailure = Objects.requireNonNull(onIndexFailure, "onIndexFailure");
        Map<String, Index<T>> indices = new HashMap<>();
        indices.put(NAMESPACE_INDEX, new Index<T>(NAMESPACE_INDEX, ConcurrentIndexer::namespaceOf, onIndexFailure));
        this.content = new Content<>(new ConcurrentHashMap<>(), indices);
        addIndexers(indexers);
    }

    /*
     * Cluster-scoped objects are left out of the namespace index: indexing them all under "" would
     * cost one set holding every key, and namespace listers never ask for "".
     */
    private static List<String> namespaceOf(KubernetesObject object) {
        String namespace = object.getMetadata().getNamespace();
        return namespace == null || namespace.isEmpty() ? List.of() : List.of(namespace);
    }

    @Override
    public Optional<T> getByKey(String key) {
        return Optional.ofNullable(content.items.get(key));
    }

    @Override
    public boolean containsKey(String key) {
        return content.items.containsKey(key);
    }

    @Override
    public List<T> list() {
        return new ArrayList<>(content.items.values());
    }

    @Override
    public List<String> listKeys() {
        return new ArrayList<>(content.items.keySet());
    }

    @Override
    public int size() {
        return content.items.size();
    }

    @Override
    public List<T> byIndex(String indexName, String value) {
        Content<T> c = content;
        return objects(c, index(c, indexName).keys(value));
    }

    @Override
    public List<String> indexKeys(String indexName, String value) {
        return new ArrayList<>(index(content, indexName).keys(value));
    }

    @Override
    public List<T> index(String indexName, T object) {
        Content<T> c = content;
        Index<T> index = index(c, indexName);
        List<String> values = index.valuesOf(object);
        if (values.size() == 1) {
            return objects(c, index.keys(values.get(0)));
        }
        Set<String> keys = new LinkedHashSet<>();
        for (String value : values) {
            keys.addAll(index.keys(value));
        }
        return objects(c, keys);
    }

    @Override
    public List<String> indexValues(String indexName) {
        return index(content, indexName).values();
    }

    @Override
    public List<String> indexNames() {
        return new ArrayList<>(content.indices.keySet());
    }

    private static <T> Index<T> index(Content<T> c, String indexName) {
        Index<T> index = c.indices.get(indexName);
        if (index == null) {
            throw new IllegalArgumentException("no index named '" + indexName + "'; known: " + c.indices.keySet());
        }
        return index;
    }

    private static <T> List<T> objects(Content<T> c, Set<String> keys) {
        List<T> result = new ArrayList<>(keys.size());
        for (String key : keys) {
            // A key can outlive its object for the moment between the writer's two steps.
            T object = c.items.get(key);
            if (object != null) {
                result.add(object);
            }
        }
        return result;
    }

    @Override
    public void addIndexers(Map<String, IndexFunction<T>> indexers) {
        if (indexers.isEmpty()) {
            return;
        }
        synchronized (writeLock) {
            Content<T> c = content;
            for (String name : indexers.keySet()) {
                if (c.indices.containsKey(name)) {
                    throw new IllegalArgumentException("an index named '" + name + "' exists already");
                }
            }
            Map<String, Index<T>> indices = new HashMap<>(c.indices);
            indexers.forEach((name, function) -> {
                Index<T> index = new Index<>(name, function, onIndexFailure);
                c.items.forEach((key, object) -> index.add(key, index.valuesForWrite(key, object)));
                indices.put(name, index);
            });
            content = new Content<>(c.items, indices);
        }
    }

    /**
     * Adds or replaces the object under its key and updates the indices.
     *
     * @return the object previously cached under that key
     */
    public Optional<T> put(T object) {
        return put(ObjectKeys.keyOf(object), object);
    }

    /**
     * Adds or replaces the object under {@code key}, which must be its {@link ObjectKeys#keyOf key} (for a
     * caller that has computed it already), and updates the indices.
     *
     * @return the object previously cached under that key
     */
    public Optional<T> put(String key, T object) {
        synchronized (writeLock) {
            Content<T> c = content;
            T old = c.items.put(key, object);
            // index by index, with no list of every index's values: this runs once per watch event
            for (int i = 0; i < c.all.size(); i++) {
                Index<T> index = c.all.get(i);
                List<String> newValues = index.valuesForWrite(key, object);
                if (old == null) {
                    index.add(key, newValues);
                } else {
                    index.update(key, index.valuesForWrite(key, old), newValues);
                }
            }
            return Optional.ofNullable(old);
        }
    }

    /**
     * Removes the object under {@code key} and its index entries.
     *
     * @return the removed object
     */
    public Optional<T> delete(String key) {
        synchronized (writeLock) {
            Content<T> c = content;
            T old = c.items.get(key);
            if (old != null) {
                c.items.remove(key);
                for (int i = 0; i < c.all.size(); i++) {
                    Index<T> index = c.all.get(i);
                    index.remove(key, index.valuesForWrite(key, old));
                }
            }
            return Optional.ofNullable(old);
        }
    }

    /**
     * Replaces the whole content with {@code items} in one step (a relist). The new content and its
     * indices are built first and then published at once.
     *
     * @param items the new objects by key
     * @return the previous content by key, which no longer changes; the caller diffs it against
     *         {@code items} to tell deleted from updated from added
     */
    public Map<String, T> replaceAll(Map<String, T> items) {
        synchronized (writeLock) {
            Content<T> old = content;
            ConcurrentHashMap<String, T> newItems = new ConcurrentHashMap<>(Math.max(16, items.size() * 4 / 3 + 1));
            Map<String, Index<T>> newIndices = new HashMap<>();
            old.indices.forEach((name, index) -> newIndices.put(name, index.emptyCopy()));
            items.forEach((key, object) -> {
                newItems.put(key, object);
                newIndices.values().forEach(index -> index.add(key, index.valuesForWrite(key, object)));
            });
            content = new Content<>(newItems, newIndices);
            return Collections.unmodifiableMap(old.items);
        }
    }

    /**
     * This cache as an {@link Indexer} that cannot be cast back to its writer: what an informer hands
     * out, so that only its apply loop writes the cache.
     */
    public Indexer<T> readOnlyView() {
        return view;
    }

    private final Indexer<T> view = new Indexer<>() {
        @Override
        public Optional<T> getByKey(String key) {
            return ConcurrentIndexer.this.getByKey(key);
        }

        @Override
        public boolean containsKey(String key) {
            return ConcurrentIndexer.this.containsKey(key);
        }

        @Override
        public List<T> list() {
            return ConcurrentIndexer.this.list();
        }

        @Override
        public List<String> listKeys() {
            return ConcurrentIndexer.this.listKeys();
        }

        @Override
        public int size() {
            return ConcurrentIndexer.this.size();
        }

        @Override
        public List<T> byIndex(String indexName, String value) {
            return ConcurrentIndexer.this.byIndex(indexName, value);
        }

        @Override
        public List<String> indexKeys(String indexName, String value) {
            return ConcurrentIndexer.this.indexKeys(indexName, value);
        }

        @Override
        public List<T> index(String indexName, T object) {
            return ConcurrentIndexer.this.index(indexName, object);
        }

        @Override
        public List<String> indexValues(String indexName) {
            return ConcurrentIndexer.this.indexValues(indexName);
        }

        @Override
        public List<String> indexNames() {
            return ConcurrentIndexer.this.indexNames();
        }

        @Override
        public void addIndexers(Map<String, IndexFunction<T>> indexers) {
            ConcurrentIndexer.this.addIndexers(indexers);
        }

        @Override
        public String toString() {
            return "Indexer[read-only, " + size() + " objects]";
        }
    };
}
