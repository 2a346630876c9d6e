package io.reactiveinformer.api;

/**
 * The server's bytes could not be turned into objects: malformed JSON, an unknown watch event type,
 * an object without metadata. The message names what was expected and where (byte offset, line and
 * column when known). Retriable: a new request starts a new stream, and a reflector relists after it
 * so no event is silently lost.
 */
public final class DecodeException extends KubernetesClientException {

    private static final long serialVersionUID = 1L;

    public DecodeException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isRetriable() {
        return true;
    }
}
