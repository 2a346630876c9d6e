package io.reactiveinformer.test.server;

import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.PatchType;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * What a request to the {@link SimulatedApiServer} says besides its path: bodies (JSON or YAML),
 * patch types from the content type, DELETE options, {@code dryRun} and integer query parameters,
 * refused with the status and message the real server uses (400, 415, 422).
 *
 * <p>Threading: immutable; used concurrently by every event loop. Build it before the server
 * listens (see the readers).
 */
final class RequestDecoder {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    /*
     * Readers built up front: an ObjectReader resolves its root deserializer when built, whereas the
     * mapper's readTree resolves it on first use under a lock that concurrent first requests contend for
     * (a blocking park on an event loop, which BlockHound rejects).
     */
    private static final ObjectReader YAML_TREE = YAML.readerFor(JsonNode.class);
    private final ObjectReader jsonTree;

    RequestDecoder(JsonMapper mapper) {
        this.jsonTree = mapper.readerFor(JsonNode.class);
    }

    /** The options of a DELETE, and whether it is a dry run. */
    record DeleteRequest(DeleteOptions options, boolean dryRun) {
    }

    /** A JSON or YAML request body; protobuf and CBOR (which the simulated server cannot decode) get 415. */
    ObjectNode objectBody(byte[] body, String contentType) {
        String ct = contentType == null ? "application/json" : contentType.split(";")[0].trim();
        JsonNode node = switch (ct) {
            case "application/json", "" -> json(body);
            case "application/yaml" -> yaml(body);
            default -> throw unsupportedMediaType(contentType, "application/json, application/yaml");
        };
        if (!node.isObject()) {
            throw ApiError.badRequest("the request body must be a JSON object");
        }
        return (ObjectNode) node;
    }

    JsonNode json(byte[] body) {
        try {
            return jsonTree.readTree(body);
        } catch (JacksonException e) {
            throw ApiError.badRequest("cannot decode the request body: " + e.getOriginalMessage());
        }
    }

    static JsonNode yaml(byte[] body) {
        try {
            return YAML_TREE.readTree(body);
        } catch (JacksonException e) {
            throw ApiError.badRequest("cannot decode the apply patch: " + e.getOriginalMessage());
        }
    }

    static PatchType patchType(String contentType) {
        String ct = contentType == null ? "" : contentType.split(";")[0].trim();
        for (PatchType type : PatchType.values()) {
            if (type.contentType().equals(ct)) {
                return type;
            }
        }
        throw unsupportedMediaType(contentType, "application/json-patch+json, application/merge-patch+json, "
                + "application/apply-patch+yaml, application/strategic-merge-patch+json");
    }

    static ApiError unsupportedMediaType(String contentType, String accepted) {
        return new ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                + "accepted media types include: " + accepted, null, null);
    }

    /**
     * The options of a DELETE: its {@code DeleteOptions} body or, only when it has none, its query
     * parameters (the real server ignores the query of a DELETE with a body, {@code dryRun} included).
     */
    DeleteRequest deleteRequest(Map<String, String> q, byte[] body, String contentType) {
        if (body.length == 0) {
            String grace = q.get("gracePeriodSeconds");
            return new DeleteRequest(new DeleteOptions(null, null, propagation(q.get("propagationPolicy")),
                    grace == null ? null : Long.valueOf(parseInt("gracePeriodSeconds", grace))), dryRun(q.get("dryRun")));
        }
        JsonNode options = objectBody(body, contentType);
        JsonNode pre = options.path("preconditions");
        JsonNode grace = options.path("gracePeriodSeconds");
        boolean dryRun = false;
        for (JsonNode value : options.path("dryRun")) {
            dryRun |= dryRun(value.asString());
        }
        return new DeleteRequest(new DeleteOptions(pre.path("uid").asString(null),
                pre.path("resourceVersion").asString(null), propagation(options.path("propagationPolicy").asString(null)),
                grace.canConvertToLong() ? grace.asLong() : null), dryRun);
    }

    private static DeleteOptions.Propagation propagation(String value) {
        if (value == null) {
            return null;
        }
        try {
            return DeleteOptions.Propagation.fromWireName(value);
        } catch (IllegalArgumentException e) {
            throw new ApiError(422, "Invalid", "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: "
                    + "Unsupported value: \"" + value + "\": supported values: \"Foreground\", \"Background\", "
                    + "\"Orphan\", \"nil\"", null, null);
        }
    }

    /** {@code dryRun=All} (the only value the real server knows); anything else is refused as it refuses it. */
    static boolean dryRun(String value) {
        if (value == null) {
            return false;
        }
        if (value.equals("All")) {
            return true;
        }
        throw new ApiError(400, "BadRequest", "Invalid dry run value: \"" + value + "\"; supported values: \"All\"",
                null, null);
    }

    static Integer parseInt(String name, String value) {
        try {
            return Integer.valueOf(value);
        } catch (NumberFormatException e) {
            throw ApiError.badRequest("invalid " + name + ": \"" + value + "\"");
        }
    }
}
