package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.openapi.models.V1StatusCause;
import io.kubernetes.client.openapi.models.V1StatusDetails;
import io.reactiveinformer.api.ResourceType;
import java.time.Duration;
import java.util.List;

/**
 * A request the simulated API server refuses, with the {@code Status} the real server would send:
 * kind {@code Status}, apiVersion {@code v1}, status {@code Failure}, message, reason, code, details.
 */
public final class ApiError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int code;
    private final String reason;
    private final transient V1StatusDetails details;
    private final Duration retryAfter;

    public ApiError(int code, String reason, String message, V1StatusDetails details, Duration retryAfter) {
        super(message, null, false, false);
        this.code = code;
        this.reason = reason;
        this.details = details;
        this.retryAfter = retryAfter;
    }

    public int code() {
        return code;
    }

    public String reason() {
        return reason;
    }

    /** The {@code Retry-After} the server sends with this error, or {@code null}. */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** The {@code Status} body. */
    public V1Status toStatus() {
        return new V1Status().kind("Status").apiVersion("v1").metadata(new V1ListMeta()).status("Failure")
                .message(getMessage()).reason(reason).details(details).code(code);
    }

    static ApiError notFound(ResourceType<?> type, String name) {
        return new ApiError(404, "NotFound", qualified(type) + " \"" + name + "\" not found", details(type, name), null);
    }

    static ApiError alreadyExists(ResourceType<?> type, String name) {
        return new ApiError(409, "AlreadyExists", qualified(type) + " \"" + name + "\" already exists",
                details(type, name), null);
    }

    static ApiError conflict(ResourceType<?> type, String name) {
        return new ApiError(409, "Conflict", "Operation cannot be fulfilled on " + qualified(type) + " \"" + name
                + "\": the object has been modified; please apply your changes to the latest version and try again",
                details(type, name), null);
    }

    /** 409 for a failed delete precondition; the real server names the kind where it names the resource. */
    static ApiError preconditionFailed(ResourceType<?> type, String qualifiedKind, String name, String message) {
        V1StatusDetails details = new V1StatusDetails().name(name).kind(type.kind());
        return new ApiError(409, "Conflict", "Operation cannot be fulfilled on " + qualifiedKind + " \"" + name
                + "\": " + message, type.group().isEmpty() ? details : details.group(type.group()), null);
    }

    /** 422 for an apply without {@code fieldManager}. */
    static ApiError fieldManagerRequired() {
        return new ApiError(422, "Invalid", "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: "
                + "is required for apply patch", new V1StatusDetails().group("meta.k8s.io").kind("PatchOptions"), null);
    }

    static ApiError badRequest(String message) {
        return new ApiError(400, "BadRequest", message, null, null);
    }

    /**
     * 422 Invalid as the real server's field errors: the message names the kind qualified by its group
     * and lists every cause, the details carry them (kubectl prints them) under the kind, not the
     * resource; an empty name is left out.
     */
    static ApiError invalid(ResourceType<?> type, String name, List<V1StatusCause> causes) {
        List<String> errors = causes.stream().map(c -> c.getField() + ": " + c.getMessage()).toList();
        String qualified = type.group().isEmpty() ? type.kind() : type.kind() + "." + type.group();
        V1StatusDetails details = new V1StatusDetails().name(name.isEmpty() ? null : name).kind(type.kind())
                .causes(causes);
        if (!type.group().isEmpty()) {
            details.group(type.group());
        }
        return new ApiError(422, "Invalid", qualified + " \"" + name + "\" is invalid: "
                + (errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]"), details, null);
    }

    /** A cause of a 422: {@code reason} such as {@code FieldValueInvalid}, the field's path, what is wrong with it. */
    static V1StatusCause cause(String reason, String field, String message) {
        return new V1StatusCause().reason(reason).field(field).message(message);
    }

    /** 410 Expired for a resourceVersion older than the retained history. */
    static ApiError tooOld(long requested, long oldest) {
        return new ApiError(410, "Expired", "too old resource version: " + requested + " (" + oldest + ")", null, null);
    }

    static ApiError continueExpired() {
        return new ApiError(410, "Expired", "The provided continue parameter is too old to display a consistent list"
                + " result. You can start a new list without the continue parameter, or use the continue value from"
                + " the response", null, null);
    }

    static ApiError tooLarge(long requested, long current) {
        return new ApiError(504, "Timeout", "Too large resource version: " + requested + ", current: " + current,
                new V1StatusDetails().retryAfterSeconds(1), null);
    }

    static ApiError notAcceptable(String offered) {
        return new ApiError(406, "NotAcceptable", "only the following media types are accepted: " + offered, null,
                null);
    }

    static ApiError pathNotFound() {
        return new ApiError(404, "NotFound", "the server could not find the requested resource", null, null);
    }

    private static String qualified(ResourceType<?> type) {
        return type.group().isEmpty() ? type.plural() : type.plural() + "." + type.group();
    }

    private static V1StatusDetails details(ResourceType<?> type, String name) {
        V1StatusDetails details = new V1StatusDetails().name(name).kind(type.plural());
        return type.group().isEmpty() ? details : details.group(type.group());
    }
}
