package io.reactiveinformer.informer;

import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import java.time.Duration;

/**
 * What a service needs to tell whether one informer's cache can be trusted: a snapshot, from
 * {@link SharedIndexInformer#health()} or {@link SharedIndexInformer#healthChanges()}.
 *
 * @param name                the informer's name
 * @param started             whether it was started
 * @param synced              whether its cache has held the initial list (stays true across later relists)
 * @param stopped             whether it stopped: by its owner, or because it could no longer follow the
 *                            server ({@code lastError} then says why); a stopped informer's cache is frozen
 * @param lastSyncAge         time since the cache last caught up with the server (a list, a watch event or
 *                            a bookmark) on the informer's clock; {@code null} before the first
 * @param consecutiveFailures list or watch attempts that failed in a row; 0 while the watch is healthy
 * @param lastError           the most recent list or watch failure, kept after recovery; {@code null}
 *                            while there was none
 * @param forbidden           whether the latest attempts failed with 401 or 403: the informer keeps its
 *                            last cache and retries with backoff, but that cache is stale until access
 *                            returns (relisting cannot fix it)
 * @param userCodeErrors      failures of user code (transform, index function, metrics hook, handler)
 *                            so far; see {@link SharedIndexInformer#userCodeErrors()}
 * @param stopCause           why it stopped when nobody stopped it: its stream from the server ended, or a
 *                            scheduler rejected its work (e.g. a disposed delivery scheduler); {@code null}
 *                            while it runs and after a stop by its owner
 * @param shardFilteringLocally the informer has a {@linkplain InformerSpec#shardSelector() shard selector} and
 *                            the server ignores it (no {@code ShardedListAndWatch} gate, or a proxy that strips
 *                            the list's {@code shardInfo}): the cache still holds exactly the shard, filtered on
 *                            the client, but the informer receives and decodes every object. Set from the last
 *                            list on; logged once at WARN. Not counted against {@link #healthy()}: the cache is right
 */
public record InformerHealth(String name, boolean started, boolean synced, boolean stopped, Duration lastSyncAge,
                             int consecutiveFailures, KubernetesClientException lastError, boolean forbidden,
                             long userCodeErrors, Throwable stopCause, boolean shardFilteringLocally) {

    /** A snapshot of an informer whose shard, if any, the server filters. */
    public InformerHealth(String name, boolean started, boolean synced, boolean stopped, Duration lastSyncAge,
                          int consecutiveFailures, KubernetesClientException lastError, boolean forbidden,
                          long userCodeErrors, Throwable stopCause) {
        this(name, started, synced, stopped, lastSyncAge, consecutiveFailures, lastError, forbidden, userCodeErrors,
                stopCause, false);
    }

    /**
     * Started, synced, not stopped and not denied access: its cache follows the server (transient
     * failures, which it retries, do not count; {@code userCodeErrors} do not either: the objects
     * concerned are cached, untransformed or unindexed).
     */
    public boolean healthy() {
        return started && synced && !stopped && !forbidden;
    }

    static boolean isForbidden(KubernetesClientException error) {
        return error instanceof KubernetesApiException.Forbidden || error instanceof KubernetesApiException.Unauthorized;
    }
}
