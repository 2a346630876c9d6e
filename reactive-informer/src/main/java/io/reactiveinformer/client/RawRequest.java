package io.reactiveinformer.client;

import java.time.Duration;
import java.util.Objects;

/**
 * A request to any path of the API server ({@code /readyz}, {@code /metrics}, {@code /version}, a
 * subresource this client has no method for), sent with the client's credentials and TLS.
 *
 * @param method      e.g. {@code GET}
 * @param path        the path below the server URL with its encoded query, starting with {@code /}
 * @param body        the body, or {@code null}
 * @param contentType the body's content type, or {@code null}
 * @param timeout     how long the whole exchange may take; {@code null}: the configuration's request timeout
 */
public record RawRequest(String method, String path, byte[] body, String contentType, Duration timeout) {

    public RawRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("the path must start with /: " + path);
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
    }

    /** A GET of {@code path}. */
    public static RawRequest get(String path) {
        return new RawRequest("GET", path, null, null, null);
    }

    /** A request with a body. */
    public static RawRequest of(String method, String path, String contentType, byte[] body) {
        return new RawRequest(method, path, body, contentType, null);
    }

    public RawRequest withTimeout(Duration timeout) {
        return new RawRequest(method, path, body, contentType, timeout);
    }
}
