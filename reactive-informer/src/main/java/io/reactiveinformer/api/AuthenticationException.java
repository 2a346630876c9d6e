package io.reactiveinformer.api;

/**
 * The request was not sent because its credentials could not be obtained: the token file is
 * unreadable, the exec plugin failed. Retriable: a rotated file or a later plugin run may succeed.
 * The message names the file or command, never a token.
 */
public final class AuthenticationException extends KubernetesClientException {

    private static final long serialVersionUID = 1L;

    public AuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isRetriable() {
        return true;
    }
}
