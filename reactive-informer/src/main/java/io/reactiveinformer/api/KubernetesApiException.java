package io.reactiveinformer.api;

import io.kubernetes.client.openapi.models.V1Status;
import java.time.Duration;
import java.util.Optional;

/**
 * The API server answered with an error {@code Status}: as an HTTP status of a request, or as an
 * {@code ERROR} event of a watch. Catch the nested subtype for the case you handle; {@link #of}
 * picks it from the code.
 */
public class KubernetesApiException extends KubernetesClientException {

    private static final long serialVersionUID = 1L;

    private final int code;
    private final String reason;
    private final transient V1Status status;

    protected KubernetesApiException(String request, int code, String reason, V1Status status) {
        super(describe(request, code, reason, status), null);
        this.code = code;
        this.reason = reason;
        this.status = status;
    }

    /**
     * The typed exception for an error answer.
     *
     * @param request    what was asked, e.g. {@code "GET /api/v1/pods"}; never with credentials
     * @param code       the HTTP code, or the Status code of a watch ERROR event
     * @param status     the decoded Status body, or {@code null}
     * @param retryAfter the {@code Retry-After} delay, or {@code null}
     */
    public static KubernetesApiException of(String request, int code, V1Status status, Duration retryAfter) {
        String reason = status == null ? null : status.getReason();
        return switch (code) {
            case 401 -> new Unauthorized(request, code, reason, status);
            case 403 -> new Forbidden(request, code, reason, status);
            case 404 -> new NotFound(request, code, reason, status);
            case 409 -> new Conflict(request, code, reason, status);
            case 410 -> new Gone(request, code, reason, status);
            case 429 -> new TooManyRequests(request, code, reason, status, retryAfter);
            default -> code >= 500
                    ? new ServerError(request, code, reason, status, retryAfter)
                    : new KubernetesApiException(request, code, reason, status);
        };
    }

    /** The HTTP (or Status) code. */
    public int code() {
        return code;
    }

    /** The Status reason (e.g. {@code Expired}, {@code Forbidden}), or {@code null}. */
    public String reason() {
        return reason;
    }

    /** The Status the server sent, if it sent one. */
    public Optional<V1Status> status() {
        return Optional.ofNullable(status);
    }

    /** How long the server asked us to wait before retrying, if it said. */
    public Optional<Duration> retryAfter() {
        return Optional.empty();
    }

    @Override
    public boolean isRetriable() {
        return false;
    }

    private static String describe(String request, int code, String reason, V1Status status) {
        StringBuilder b = new StringBuilder(request).append(": ").append(code);
        if (reason != null) {
            b.append(' ').append(reason);
        }
        if (status != null && status.getMessage() != null) {
            b.append(": ").append(status.getMessage());
        }
        return b.toString();
    }

    /** 401: the credentials were refused. */
    public static final class Unauthorized extends KubernetesApiException {
        private static final long serialVersionUID = 1L;

        Unauthorized(String request, int code, String reason, V1Status status) {
            super(request, code, reason, status);
        }
    }

    /** 403: RBAC denies the request. */
    public static final class Forbidden extends KubernetesApiException {
        private static final long serialVersionUID = 1L;

        Forbidden(String request, int code, String reason, V1Status status) {
            super(request, code, reason, status);
        }
    }

    /** 404: no such object, or no such resource (a CRD not installed). */
    public static final class NotFound extends KubernetesApiException {
        private static final long serialVersionUID = 1L;

        NotFound(String request, int code, String reason, V1Status status) {
            super(request, code, reason, status);
        }
    }

    /** 409: a resourceVersion precondition failed, or the object already exists. */
    public static final class Conflict extends KubernetesApiException {
        private static final long serialVersionUID = 1L;

        Conflict(String request, int code, String reason, V1Status status) {
            super(request, code, reason, status);
        }
    }

    /** 410 (reason {@code Expired} or {@code Gone}): the resourceVersion or continue token is too old; relist. */
    public static final class Gone extends KubernetesApiException {
        private static final long serialVersionUID = 1L;

        Gone(String request, int code, String reason, V1Status status) {
            super(request, code, reason, status);
        }
    }

    /** 429: throttled; retry after {@link #retryAfter()} without relisting. */
    public static final class TooManyRequests extends KubernetesApiException {
        private static final long serialVersionUID = 1L;
        private final Duration retryAfter;

        TooManyRequests(String request, int code, String reason, V1Status status, Duration retryAfter) {
            super(request, code, reason, status);
            this.retryAfter = retryAfter;
        }

        @Override
        public Optional<Duration> retryAfter() {
            return Optional.ofNullable(retryAfter);
        }

        @Override
        public boolean isRetriable() {
            return true;
        }
    }

    /** 5xx: the server failed; retriable. */
    public static final class ServerError extends KubernetesApiException {
        private static final long serialVersionUID = 1L;
        private final Duration retryAfter;

        ServerError(String request, int code, String reason, V1Status status, Duration retryAfter) {
            super(request, code, reason, status);
            this.retryAfter = retryAfter;
        }

        @Override
        public Optional<Duration> retryAfter() {
            return Optional.ofNullable(retryAfter);
        }

        @Override
        public boolean isRetriable() {
            return true;
        }
    }
}
