package io.reactiveinformer.api;

/**
 * Query parameters of a WATCH request. Every object field may be {@code null} (not sent).
 *
 * @param labelSelector        as for LIST
 * @param fieldSelector        as for LIST
 * @param resourceVersion      start after this version; {@code null}/{@code ""} starts at the current state
 * @param resourceVersionMatch {@code NotOlderThan} for streaming lists
 * @param timeoutSeconds       the server closes the stream after this many seconds
 * @param allowBookmarks       ask for BOOKMARK events
 * @param sendInitialEvents    streaming list (KEP-3157): the current state first, as ADDED events,
 *                             ended by a bookmark annotated {@code k8s.io/initial-events-end: "true"}
 * @param shardSelector        as for LIST; a watch carries no echo of it, so whether the server applies it shows
 *                             in a LIST's {@link ObjectList#shardSelector()} (or in an event outside the shard)
 */
public record WatchOptions(String labelSelector, String fieldSelector, String resourceVersion,
                           String resourceVersionMatch, Integer timeoutSeconds, boolean allowBookmarks,
                           boolean sendInitialEvents, ShardSelector shardSelector) {

    /** Without a shard selector (the options before sharded watches existed). */
    public WatchOptions(String labelSelector, String fieldSelector, String resourceVersion,
                        String resourceVersionMatch, Integer timeoutSeconds, boolean allowBookmarks,
                        boolean sendInitialEvents) {
        this(labelSelector, fieldSelector, resourceVersion, resourceVersionMatch, timeoutSeconds, allowBookmarks,
                sendInitialEvents, null);
    }

    /** Watch from the given version with bookmarks on. */
    public static WatchOptions from(String resourceVersion) {
        return new WatchOptions(null, null, resourceVersion, null, null, true, false);
    }

    public WatchOptions withSelectors(String labelSelector, String fieldSelector) {
        return new WatchOptions(labelSelector, fieldSelector, resourceVersion, resourceVersionMatch, timeoutSeconds,
                allowBookmarks, sendInitialEvents, shardSelector);
    }

    public WatchOptions withTimeoutSeconds(Integer timeoutSeconds) {
        return new WatchOptions(labelSelector, fieldSelector, resourceVersion, resourceVersionMatch, timeoutSeconds,
                allowBookmarks, sendInitialEvents, shardSelector);
    }

    /** A streaming list: initial state as ADDED events, then the watch, from at least {@code resourceVersion}. */
    public WatchOptions withInitialEvents() {
        return new WatchOptions(labelSelector, fieldSelector, resourceVersion, "NotOlderThan", timeoutSeconds,
                true, true, shardSelector);
    }

    /** Only the objects {@code shardSelector} selects; {@code null}: all of them. */
    public WatchOptions withShardSelector(ShardSelector shardSelector) {
        return new WatchOptions(labelSelector, fieldSelector, resourceVersion, resourceVersionMatch, timeoutSeconds,
                allowBookmarks, sendInitialEvents, shardSelector);
    }
}
