package io.reactiveinformer.config;

/**
 * The client configuration could not be built or its credentials could not be obtained: a missing
 * or malformed kubeconfig, an unknown context, an unreadable certificate or key, a failing exec
 * plugin. The message names the file, context or command, never a credential.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
