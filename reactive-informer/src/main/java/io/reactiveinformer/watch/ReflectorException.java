package io.reactiveinformer.watch;

import io.reactiveinformer.api.KubernetesClientException;

/**
 * A failure the reflector detected itself, rather than one the client signalled. Always retriable:
 * the reflector retries it like any other failure and reports it in a
 * {@link ReflectorEvent.Failed}.
 */
public final class ReflectorException extends KubernetesClientException {

    private static final long serialVersionUID = 1L;

    /** What the reflector noticed. */
    public enum Reason {
        /** No event and no bookmark for the idle timeout: the connection is presumed dead; re-watch. */
        WATCH_IDLE,
        /** The watch closed normally within a second without any event: suspicious; relist. */
        WATCH_TOO_SHORT,
        /**
         * The server's store is older than what was already synced (etcd restored from a backup): relist.
         * See {@code StoreRollbackDetector}.
         */
        STORE_ROLLED_BACK,
        /** The {@link ListerWatcher} broke its contract and signalled something else than a client exception; relist. */
        UNEXPECTED_ERROR
    }

    private final Reason reason;

    ReflectorException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    @Override
    public boolean isRetriable() {
        return true;
    }
}
