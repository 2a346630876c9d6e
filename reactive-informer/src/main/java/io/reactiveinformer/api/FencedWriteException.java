package io.reactiveinformer.api;

/**
 * A write was not sent because the {@link WriteFence} in its Reactor {@code Context} no longer admitted it: the
 * authority the write was made under (for a controller, the Lease term of the reconcile) has ended. Nothing
 * reached the server. Not retriable: the same write under the same authority is refused again; a new holder
 * does the work under its own.
 */
public final class FencedWriteException extends KubernetesClientException {

    private static final long serialVersionUID = 1L;

    public FencedWriteException(String message) {
        super(message, null);
    }

    @Override
    public boolean isRetriable() {
        return false;
    }
}
