package io.reactiveinformer.cache;

/**
 * Told when an index function fails for an object the cache is writing; the object is then cached but
 * not indexed under that index (a cache that loses the object would be silently stale). Called on the
 * writer's thread; must not throw or block.
 */
@FunctionalInterface
public interface IndexFailureListener {

    /**
     * @param indexName the index whose function failed
     * @param key       the object's key
     * @param error     what the function threw (an {@link IllegalStateException} when it returned {@code null})
     */
    void failed(String indexName, String key, RuntimeException error);

    /** Ignores failures. */
    static IndexFailureListener ignore() {
        return (indexName, key, error) -> { };
    }
}
