package io.reactiveinformer.informer;

import io.reactiveinformer.api.KubernetesClientException;

/**
 * An informer could not complete its initial list: the server kept refusing it (401, 403, a 404 for a
 * resource whose CRD is not installed, another non-retriable answer) for the configured number of
 * attempts, or the informer was stopped first (by its owner, or because it could no longer follow the
 * server). The informer itself keeps retrying with backoff; a
 * later {@code hasSynced()} subscription completes once a list succeeds.
 */
public final class InformerSyncException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String informerName;
    private final int attempts;

    InformerSyncException(String informerName, int attempts, KubernetesClientException cause) {
        super(informerName + ": not synced after " + attempts + " failed attempts: " + cause.getMessage(), cause);
        this.informerName = informerName;
        this.attempts = attempts;
    }

    InformerSyncException(String informerName, String why) {
        this(informerName, why, null);
    }

    InformerSyncException(String informerName, String why, Throwable cause) {
        super(informerName + ": " + why, cause);
        this.informerName = informerName;
        this.attempts = 0;
    }

    /** The name of the informer that did not sync. */
    public String informerName() {
        return informerName;
    }

    /** How many consecutive attempts had failed; 0 when the informer was stopped before it synced. */
    public int attempts() {
        return attempts;
    }

    /**
     * The last failure (a {@link KubernetesClientException} after failed attempts), why the informer
     * stopped when it could no longer follow the server, or {@code null} when its owner stopped it
     * before it synced.
     */
    @Override
    public synchronized Throwable getCause() {
        return super.getCause();
    }
}
