package io.reactiveinformer.api;

/**
 * The request did not get an HTTP answer, or its body was cut: connection refused or reset, TLS
 * handshake failure, timeout. Always retriable.
 */
public final class TransportException extends KubernetesClientException {

    private static final long serialVersionUID = 1L;

    public TransportException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isRetriable() {
        return true;
    }
}
