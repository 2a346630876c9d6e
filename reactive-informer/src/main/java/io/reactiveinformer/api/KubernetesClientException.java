package io.reactiveinformer.api;

/**
 * Base of every error the client signals. Messages name the request (method and path) that failed,
 * never a credential.
 */
public abstract class KubernetesClientException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    protected KubernetesClientException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Whether repeating the same request later may succeed without anything else changing
     * (a transport failure, 429, 5xx). A 410 is not retriable as is: it needs a relist.
     */
    public abstract boolean isRetriable();
}
