package io.reactiveinformer.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One named index: its function and the map from each value to the keys of the objects having it
 * (client-go's {@code Index}). Mutated only by the single writer of the owning
 * {@link ConcurrentIndexer}; read by anyone. Value sets are concurrent sets, so a write touches
 * only the sets of the values that changed (no copy of a large namespace's set per write) and a
 * reader iterating a set never blocks; a set that becomes empty is removed so that values of
 * deleted objects do not accumulate.
 */
final class Index<T> {

    private final String name;
    private final IndexFunction<T> function;
    private final IndexFailureListener onFailure;
    private final ConcurrentHashMap<String, Set<String>> keysByValue = new ConcurrentHashMap<>();

    Index(String name, IndexFunction<T> function, IndexFailureListener onFailure) {
        this.name = name;
        this.function = function;
        this.onFailure = onFailure;
    }

    /** A new, empty index with the same function. */
    Index<T> emptyCopy() {
        return new Index<>(name, function, onFailure);
    }

    /** The values of {@code object}, for a reader's query: a failing function fails the query. */
    List<String> valuesOf(T object) {
        List<String> values = function.values(object);
        if (values == null) {
            throw new IllegalStateException("index function '" + name + "' returned null");
        }
        return values;
    }

    /**
     * The values of {@code object}, for the writer: a failing function is reported and indexes the
     * object under no value, so the object is still cached.
     */
    List<String> valuesForWrite(String key, T object) {
        try {
            return valuesOf(object);
        } catch (RuntimeException e) {
            onFailure.failed(name, key, e);
            return List.of();
        }
    }

    void add(String key, List<String> values) {
        for (String value : values) {
            keysByValue.computeIfAbsent(value, v -> ConcurrentHashMap.newKeySet()).add(key);
        }
    }

    void remove(String key, List<String> values) {
        for (String value : values) {
            removeKey(value, key);
        }
    }

    void update(String key, List<String> oldValues, List<String> newValues) {
        if (oldValues.size() == 1 && newValues.size() == 1 && oldValues.get(0).equals(newValues.get(0))) {
            return;
        }
        // Add before removing so that a value the object keeps never looks empty to a reader.
        for (String value : newValues) {
            if (!oldValues.contains(value)) {
                keysByValue.computeIfAbsent(value, v -> ConcurrentHashMap.newKeySet()).add(key);
            }
        }
        for (String value : oldValues) {
            if (!newValues.contains(value)) {
                removeKey(value, key);
            }
        }
    }

    private void removeKey(String value, String key) {
        Set<String> keys = keysByValue.get(value);
        if (keys != null && keys.remove(key) && keys.isEmpty()) {
            keysByValue.remove(value, keys);
        }
    }

    Set<String> keys(String value) {
        return keysByValue.getOrDefault(value, Set.of());
    }

    List<String> values() {
        return new ArrayList<>(keysByValue.keySet());
    }
}
