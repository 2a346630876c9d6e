package io.reactiveinformer.watch;

import io.reactiveinformer.api.ShardSelector;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link Reflector} asks the server for, and how it paces itself.
 *
 * @param labelSelector   sent with every LIST and WATCH; {@code null} for none
 * @param fieldSelector   sent with every LIST and WATCH; {@code null} for none
 * @param pageSize        {@code null} for client-go's policy: pages of {@value #DEFAULT_PAGE_SIZE}, except
 *                        that a relist at a specific resourceVersion is unpaginated so the server answers it
 *                        from its watch cache (unless the first list at {@code "0"} came back paginated,
 *                        which shows the server has no watch cache for this resource); a positive number
 *                        for always that page size; 0 for never paginating
 * @param streamingList   use a streaming list ({@code sendInitialEvents}, KEP-3157) instead of LIST, the default
 *                        (as client-go's {@code WatchListClient} since 1.35); the reflector falls back to LIST for
 *                        good once the server rejects the request (400, 422: a server before the feature, or with
 *                        it off) or serves it as a plain watch (its whole timeout without the initial-events-end
 *                        bookmark), and for one attempt when the stream ends early before that bookmark (as
 *                        client-go). {@code false} always lists with LIST
 * @param minWatchTimeout each watch asks the server to close it after a random time in
 *                        {@code [minWatchTimeout, 2 × minWatchTimeout)}, whole seconds, at least one second
 * @param idleTimeout     a watch that delivers no event and no bookmark for this long is presumed dead
 *                        (a half-open connection) and restarted from the last resourceVersion; keep it
 *                        above the server's bookmark interval, or at least {@code 2 × minWatchTimeout} when
 *                        the server may send no bookmarks, lest quiet watches count as failures
 * @param backoff         the delays between failed attempts
 * @param rollbackProbeDelay how long a re-watch after a lost connection may stay silent before the reflector
 *                        checks, with one {@code limit=1} LIST, whether the server's store went back in time
 *                        (etcd restored from a backup) and relists if so; {@code null} never checks. See
 *                        {@link StoreRollbackDetector}
 * @param shardSelector   sent with every LIST and WATCH (KEP-5866); {@code null} for none. When a LIST comes back
 *                        without the server's echo of it (a server without the {@code ShardedListAndWatch}
 *                        gate, or a proxy that dropped it), the reflector drops the objects outside it itself,
 *                        so that what it delivers is the same either way; see {@link ReflectorEvent.Listed}
 */
public record ReflectorOptions(String labelSelector, String fieldSelector, Integer pageSize, boolean streamingList,
                               Duration minWatchTimeout, Duration idleTimeout, Backoff backoff,
                               Duration rollbackProbeDelay, ShardSelector shardSelector) {

    /** Without a shard selector (the options before sharded lists existed). */
    public ReflectorOptions(String labelSelector, String fieldSelector, Integer pageSize, boolean streamingList,
                            Duration minWatchTimeout, Duration idleTimeout, Backoff backoff,
                            Duration rollbackProbeDelay) {
        this(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout, idleTimeout, backoff,
                rollbackProbeDelay, null);
    }

    /** client-go's page size. */
    public static final int DEFAULT_PAGE_SIZE = 500;

    private static final ReflectorOptions DEFAULTS = new ReflectorOptions(null, null, null, true,
            Duration.ofMinutes(5), Duration.ofMinutes(11), Backoff.defaults(), Duration.ofSeconds(10));

    public ReflectorOptions {
        Objects.requireNonNull(minWatchTimeout, "minWatchTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(backoff, "backoff");
        if (pageSize != null && pageSize < 0) {
            throw new IllegalArgumentException("pageSize must not be negative: " + pageSize);
        }
        if (minWatchTimeout.getSeconds() < 1) {
            throw new IllegalArgumentException("minWatchTimeout must be at least one second: " + minWatchTimeout);
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout must be positive: " + idleTimeout);
        }
        if (rollbackProbeDelay != null && rollbackProbeDelay.isNegative()) {
            throw new IllegalArgumentException("rollbackProbeDelay must not be negative: " + rollbackProbeDelay);
        }
    }

    /**
     * No selectors, a streaming list (falling back to LIST, with client-go's paging policy, on a server without
     * it; {@code withStreamingList(false)} for LIST always), watches of 5 to 10 minutes,
     * {@link Backoff#defaults()}, and an idle timeout of 11 minutes: longer than the longest watch, so it
     * fires only on a connection that is dead (a live server closes every watch by its timeout), whatever
     * the server's bookmark habits. API servers with a watch cache send a bookmark about every minute;
     * against those, an idle timeout of 2 to 3 minutes detects a dead connection sooner. A re-watch after a
     * lost connection that stays silent for 10 s is checked for a store rollback.
     */
    public static ReflectorOptions defaults() {
        return DEFAULTS;
    }

    public ReflectorOptions withSelectors(String labelSelector, String fieldSelector) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff, rollbackProbeDelay, shardSelector);
    }

    public ReflectorOptions withPageSize(Integer pageSize) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff, rollbackProbeDelay, shardSelector);
    }

    public ReflectorOptions withStreamingList(boolean streamingList) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff, rollbackProbeDelay, shardSelector);
    }

    public ReflectorOptions withMinWatchTimeout(Duration minWatchTimeout) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff, rollbackProbeDelay, shardSelector);
    }

    public ReflectorOptions withIdleTimeout(Duration idleTimeout) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff, rollbackProbeDelay, shardSelector);
    }

    public ReflectorOptions withBackoff(Backoff backoff) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff, rollbackProbeDelay, shardSelector);
    }

    public ReflectorOptions withRollbackProbeDelay(Duration rollbackProbeDelay) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff, rollbackProbeDelay, shardSelector);
    }

    public ReflectorOptions withShardSelector(ShardSelector shardSelector) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff, rollbackProbeDelay, shardSelector);
    }
}
