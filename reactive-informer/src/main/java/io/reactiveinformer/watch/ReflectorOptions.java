package io.reactiveinformer.watch;

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
 * @param streamingList   use a streaming list ({@code sendInitialEvents}, KEP-3157) instead of LIST; the
 *                        reflector falls back to LIST for good once the server rejects it or ends it without
 *                        the initial-events-end bookmark
 * @param minWatchTimeout each watch asks the server to close it after a random time in
 *                        {@code [minWatchTimeout, 2 × minWatchTimeout)}, whole seconds, at least one second
 * @param idleTimeout     a watch that delivers no event and no bookmark for this long is presumed dead
 *                        (a half-open connection) and restarted from the last resourceVersion
 * @param backoff         the delays between failed attempts
 */
public record ReflectorOptions(String labelSelector, String fieldSelector, Integer pageSize, boolean streamingList,
                               Duration minWatchTimeout, Duration idleTimeout, Backoff backoff) {

    /** client-go's page size. */
    public static final int DEFAULT_PAGE_SIZE = 500;

    private static final ReflectorOptions DEFAULTS = new ReflectorOptions(null, null, null, false,
            Duration.ofMinutes(5), Duration.ofMinutes(5), Backoff.defaults());

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
    }

    /**
     * No selectors, client-go's paging policy, LIST (not streaming), watches of 5 to 10 minutes, idle
     * after 5 minutes without an event or bookmark (API servers send a bookmark about every minute),
     * {@link Backoff#defaults()}.
     */
    public static ReflectorOptions defaults() {
        return DEFAULTS;
    }

    public ReflectorOptions withSelectors(String labelSelector, String fieldSelector) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff);
    }

    public ReflectorOptions withPageSize(Integer pageSize) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff);
    }

    public ReflectorOptions withStreamingList(boolean streamingList) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff);
    }

    public ReflectorOptions withMinWatchTimeout(Duration minWatchTimeout) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff);
    }

    public ReflectorOptions withIdleTimeout(Duration idleTimeout) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff);
    }

    public ReflectorOptions withBackoff(Backoff backoff) {
        return new ReflectorOptions(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout,
                idleTimeout, backoff);
    }
}
