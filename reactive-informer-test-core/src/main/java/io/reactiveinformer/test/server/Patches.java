package io.reactiveinformer.test.server;

import java.util.Map;
import tools.jackson.core.JsonPointer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The patch formats applied to object trees: JSON merge patch and JSON patch. A strategic merge patch
 * is {@link StrategicMergePatch}'s, server-side apply {@link ServerSideApply}'s.
 */
final class Patches {

    private Patches() {
    }

    /** RFC 7386: objects merge recursively, {@code null} removes, anything else replaces. */
    static JsonNode merge(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject() ? (ObjectNode) target.deepCopy()
                : tools.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> e : patch.properties()) {
            if (e.getValue().isNull()) {
                result.remove(e.getKey());
            } else {
                result.set(e.getKey(), merge(result.get(e.getKey()), e.getValue()));
            }
        }
        return result;
    }

    /** RFC 6902 operations {@code add}, {@code remove}, {@code replace}, {@code test}, {@code copy}, {@code move}. */
    static JsonNode jsonPatch(JsonNode target, JsonNode operations) {
        if (!operations.isArray()) {
            throw ApiError.badRequest("a JSON patch must be an array of operations");
        }
        JsonNode doc = target.deepCopy();
        for (JsonNode op : operations) {
            String kind = op.path("op").asString("");
            String path = op.path("path").asString("");
            switch (kind) {
                case "add" -> doc = add(doc, path, required(op, "value"));
                case "remove" -> doc = remove(doc, path);
                case "replace" -> doc = add(remove(doc, path), path, required(op, "value"));
                case "test" -> {
                    if (!doc.at(path).equals(required(op, "value"))) {
                        throw new ApiError(422, "Invalid", "the test operation failed at " + path, null, null);
                    }
                }
                case "copy" -> doc = add(doc, path, existing(doc, op.path("from").asString("")).deepCopy());
                case "move" -> {
                    String from = op.path("from").asString("");
                    JsonNode value = existing(doc, from).deepCopy();
                    doc = add(remove(doc, from), path, value);
                }
                default -> throw ApiError.badRequest("unknown JSON patch operation \"" + kind + "\"");
            }
        }
        return doc;
    }

    private static JsonNode required(JsonNode op, String field) {
        JsonNode value = op.get(field);
        if (value == null) {
            throw ApiError.badRequest("JSON patch operation " + op + " has no \"" + field + "\"");
        }
        return value;
    }

    private static JsonNode existing(JsonNode doc, String path) {
        JsonNode node = doc.at(path);
        if (node.isMissingNode()) {
            throw new ApiError(422, "Invalid", "no value at " + path, null, null);
        }
        return node;
    }

    private static JsonNode add(JsonNode doc, String path, JsonNode value) {
        if (path.isEmpty()) {
            return value.deepCopy();
        }
        JsonPointer pointer = JsonPointer.compile(path);
        JsonNode parent = doc.at(pointer.head());
        String last = pointer.last().getMatchingProperty();
        if (parent instanceof ObjectNode object) {
            object.set(last, value.deepCopy());
        } else if (parent instanceof ArrayNode array) {
            if ("-".equals(last)) {
                array.add(value.deepCopy());
            } else {
                int index = index(last, array.size() + 1, path);
                array.insert(index, value.deepCopy());
            }
        } else {
            throw new ApiError(422, "Invalid", "no parent for " + path, null, null);
        }
        return doc;
    }

    private static JsonNode remove(JsonNode doc, String path) {
        JsonPointer pointer = JsonPointer.compile(path);
        JsonNode parent = doc.at(pointer.head());
        String last = pointer.last().getMatchingProperty();
        existing(doc, path);
        if (parent instanceof ObjectNode object) {
            object.remove(last);
        } else if (parent instanceof ArrayNode array) {
            array.remove(index(last, array.size(), path));
        }
        return doc;
    }

    private static int index(String token, int bound, String path) {
        try {
            int i = Integer.parseInt(token);
            if (i >= 0 && i < bound) {
                return i;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new ApiError(422, "Invalid", "bad array index in " + path, null, null);
    }
}
