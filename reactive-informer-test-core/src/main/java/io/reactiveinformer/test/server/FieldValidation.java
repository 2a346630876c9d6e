package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1StatusCause;
import io.kubernetes.client.openapi.models.V1StatusDetails;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code fieldValidation} query parameter of a create, update or patch: what the server does
 * with the fields of a body that the kind's schema does not declare ({@link Pruning} drops them
 * either way). {@code Strict} refuses the request: a create or update with 400 {@code strict decoding
 * error: unknown field "spec.x"}, a patch with 422 naming the {@code patch}. {@code Warn}, the
 * default, accepts it with one {@code Warning: 299 - "unknown field \"spec.x\""} response header per
 * field. {@code Ignore} accepts it silently. A field a JSON body names twice in one object is treated
 * alike ({@code duplicate field "spec.size"}; the last value counts). An apply patch with an unknown field fails with 500
 * whatever the parameter says, as server-side apply cannot type it.
 *
 * <p>Where the real server finds a patch's unknown fields in the patched object, this finds them in
 * the patch (equal, as stored objects have none), so a refused patch's message shows the patch where
 * the real one shows the patched object. Stateless.
 */
enum FieldValidation {
    STRICT, WARN, IGNORE;

    /** The mode a request's {@code fieldValidation} names; 422 for anything else, as the real server answers. */
    static FieldValidation of(String value, String method) {
        if (value == null || value.isEmpty() || value.equals("Warn")) {
            return WARN;
        }
        if (value.equals("Strict")) {
            return STRICT;
        }
        if (value.equals("Ignore")) {
            return IGNORE;
        }
        String options = switch (method) {
            case "POST" -> "CreateOptions";
            case "PUT" -> "UpdateOptions";
            default -> "PatchOptions";
        };
        String message = "Unsupported value: \"" + value + "\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"";
        throw new ApiError(422, "Invalid", options + ".meta.k8s.io \"\" is invalid: fieldValidation: " + message,
                new V1StatusDetails().group("meta.k8s.io").kind(options).addCausesItem(new V1StatusCause()
                        .reason("FieldValueNotSupported").message(message).field("fieldValidation")), null);
    }

    /**
     * The warnings a create or update of {@code body} gets; throws 400 when strict and there is an
     * unknown field, or a field the JSON named twice ({@code duplicates}, from {@link DuplicateFields}).
     */
    List<String> checkObject(Kind kind, JsonNode body, List<String> duplicates) {
        List<String> problems = problems(duplicates, Pruning.unknownFields(kind, body));
        if (this == STRICT && !problems.isEmpty()) {
            ResourceType<?> type = kind.type;
            throw ApiError.badRequest(type.kind() + " in version \"" + type.version() + "\" cannot be handled as a "
                    + type.kind() + ": strict decoding error: " + String.join(", ", problems));
        }
        return this == WARN ? problems : List.of();
    }

    /**
     * The warnings a patch gets; throws 422 when strict and the patch sets an unknown field, and 500
     * for an apply patch that does.
     */
    List<String> checkPatch(Kind kind, String name, PatchType patchType, JsonNode patch, List<String> duplicates) {
        List<String> unknown = Pruning.unknownFields(kind, patchType == PatchType.JSON_PATCH ? skeleton(patch)
                : withoutDirectives(patch));
        List<String> problems = problems(patchType == PatchType.JSON_PATCH ? List.of() : duplicates, unknown);
        if (problems.isEmpty()) {
            return List.of();
        }
        ResourceType<?> type = kind.type;
        if (patchType == PatchType.APPLY && !unknown.isEmpty()) {
            throw new ApiError(500, null, "failed to create typed patch object (/" + name + "; " + type.group() + "/"
                    + type.version() + ", Kind=" + type.kind() + "): ." + unknown.get(0)
                    + ": field not declared in schema", null, null);
        }
        if (this == STRICT) {
            String message = "Invalid value: " + quote(patch.toString()) + ": strict decoding error: "
                    + String.join(", ", problems);
            throw new ApiError(422, "Invalid", " \"\" is invalid: patch: " + message, new V1StatusDetails()
                    .addCausesItem(new V1StatusCause().reason("FieldValueInvalid").message(message).field("patch")), null);
        }
        return this == WARN ? problems : List.of();
    }

    /** What the strict decoder reports, in its order: the fields named twice, then the unknown ones. */
    private static List<String> problems(List<String> duplicates, List<String> unknown) {
        List<String> problems = new ArrayList<>();
        duplicates.forEach(f -> problems.add("duplicate field " + quote(f)));
        unknown.forEach(f -> problems.add("unknown field " + quote(f)));
        return problems;
    }

    private static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** A merge or strategic merge patch without the strategic directives ({@code $patch}, {@code $setElementOrder/...}). */
    private static JsonNode withoutDirectives(JsonNode patch) {
        if (patch instanceof ObjectNode object) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            object.properties().forEach(e -> {
                if (!e.getKey().startsWith("$")) {
                    copy.set(e.getKey(), withoutDirectives(e.getValue()));
                }
            });
            return copy;
        }
        if (patch instanceof ArrayNode array) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            array.forEach(item -> copy.add(withoutDirectives(item)));
            return copy;
        }
        return patch;
    }

    /**
     * The fields a JSON patch's {@code add} and {@code replace} operations set, as one
     * object: {@code [{"op":"add","path":"/spec/x","value":1}]} is {@code {"spec":{"x":1}}}.
     */
    private static JsonNode skeleton(JsonNode patch) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        for (JsonNode op : patch) {
            String kind = op.path("op").asString("");
            if (!kind.equals("add") && !kind.equals("replace")) {
                continue;
            }
            String[] tokens = op.path("path").asString("").split("/", -1);
            JsonNode at = root;
            for (int i = 1; i < tokens.length && at != null; i++) {
                String token = tokens[i].replace("~1", "/").replace("~0", "~");
                boolean last = i == tokens.length - 1;
                boolean nextIsIndex = !last && tokens[i + 1].matches("\\d+|-");
                JsonNode child = last ? op.path("value").deepCopy()
                        : nextIsIndex ? JsonNodeFactory.instance.arrayNode() : JsonNodeFactory.instance.objectNode();
                at = step(at, token, child);
            }
        }
        return root;
    }

    /** Puts {@code child} at {@code token} of {@code parent} unless something is there; the node now there. */
    private static JsonNode step(JsonNode parent, String token, JsonNode child) {
        if (parent instanceof ObjectNode object) {
            JsonNode existing = object.get(token);
            if (existing == null || !existing.isContainer()) {
                object.set(token, child);
                return child;
            }
            return existing;
        }
        if (parent instanceof ArrayNode array) {
            int index = token.equals("-") || token.length() > 4 ? array.size() : Integer.parseInt(token);
            while (array.size() <= index) {
                array.addNull();
            }
            if (!array.get(index).isContainer()) {
                array.set(index, child);
            }
            return array.get(index);
        }
        return null;
    }
}
