package io.reactiveinformer.api;

/**
 * Query parameters of a LIST request. Every field may be {@code null} (not sent).
 *
 * @param labelSelector        e.g. {@code app=web,tier!=db}
 * @param fieldSelector        e.g. {@code metadata.name=foo}
 * @param limit                page size; {@code null} or 0 for an unpaginated list
 * @param continueToken        the previous page's continue token
 * @param resourceVersion      {@code ""} consistent read, {@code "0"} any cached state, or a version
 * @param resourceVersionMatch {@code NotOlderThan} or {@code Exact}, with a non-empty resourceVersion
 * @param shardSelector        only the objects of these hash ranges (KEP-5866, alpha gate {@code ShardedListAndWatch});
 *                             a server without the gate ignores it: check {@link ObjectList#shardSelector()}
 */
public record ListOptions(String labelSelector, String fieldSelector, Integer limit, String continueToken,
                          String resourceVersion, String resourceVersionMatch, ShardSelector shardSelector) {

    private static final ListOptions NONE = new ListOptions(null, null, null, null, null, null, null);

    /** Without a shard selector (the options before sharded lists existed). */
    public ListOptions(String labelSelector, String fieldSelector, Integer limit, String continueToken,
                       String resourceVersion, String resourceVersionMatch) {
        this(labelSelector, fieldSelector, limit, continueToken, resourceVersion, resourceVersionMatch, null);
    }

    /** No parameters at all: an unpaginated consistent read of everything. */
    public static ListOptions none() {
        return NONE;
    }

    public ListOptions withSelectors(String labelSelector, String fieldSelector) {
        return new ListOptions(labelSelector, fieldSelector, limit, continueToken, resourceVersion, resourceVersionMatch,
                shardSelector);
    }

    public ListOptions withLimit(Integer limit) {
        return new ListOptions(labelSelector, fieldSelector, limit, continueToken, resourceVersion, resourceVersionMatch,
                shardSelector);
    }

    public ListOptions withContinue(String continueToken) {
        return new ListOptions(labelSelector, fieldSelector, limit, continueToken, resourceVersion, resourceVersionMatch,
                shardSelector);
    }

    public ListOptions withResourceVersion(String resourceVersion, String resourceVersionMatch) {
        return new ListOptions(labelSelector, fieldSelector, limit, continueToken, resourceVersion, resourceVersionMatch,
                shardSelector);
    }

    /** Only the objects {@code shardSelector} selects; {@code null}: all of them. */
    public ListOptions withShardSelector(ShardSelector shardSelector) {
        return new ListOptions(labelSelector, fieldSelector, limit, continueToken, resourceVersion, resourceVersionMatch,
                shardSelector);
    }
}
