package io.reactiveinformer.test.server;

import static io.reactiveinformer.test.server.StrategicMergeErrors.internalError;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A strategic merge patch applied as kube-apiserver applies one to a built-in kind (apimachinery's
 * {@code strategicpatch}), with the merge keys and patch strategies of the kind's {@link Schema}, that
 * is of the real server's OpenAPI documents: so that a client's patch that adds a sidecar keeps the
 * other containers, as it does in a cluster.
 *
 * <p>What it does: maps merge recursively and {@code null} deletes a key; a map with
 * {@code $patch: replace} replaces, one with {@code $patch: delete} empties the map. A list whose field
 * has the strategy {@code merge} merges: by its merge key (items patched in place, new ones added, an item
 * {@code {"<key>": v, "$patch": "delete"}} removed, {@code {"$patch": "replace"}} replacing the list), or
 * for primitives as a union ({@code $deleteFromPrimitiveList/<field>} removes). Any other list is
 * replaced. {@code $setElementOrder/<field>} orders a list, {@code $retainKeys} clears the keys it does
 * not name. Merged lists are ordered as the real server orders them: the patch's items in the patch's
 * order, the items only the server had in their old order, interleaved where the old order relates them.
 *
 * <p>Like the real server, which decodes the result into the kind's Go type, the result keeps no
 * {@code $} key. Malformed directives get the real server's status: 400 for the directive formats it
 * checks, 422 for lists of lists, and 500 without a reason (with its Go-formatted message) for the rest
 * (only the message for a {@code $setElementOrder} of an unknown field differs: it names no Go struct).
 * A built-in kind whose OpenAPI document the test kit lacks is refused with 501: its merge keys are
 * unknown here. Custom resources never get here ({@link RequestRouter} answers 415, as the real server).
 *
 * <p>This class merges maps and handles the directives; {@link StrategicMergeList} merges and orders the
 * lists, {@link StrategicMergeErrors} words the real server's errors.
 */
final class StrategicMergePatch {

    static final String PATCH = "$patch";
    private static final String RETAIN_KEYS = "$retainKeys";
    static final String SET_ELEMENT_ORDER = "$setElementOrder";
    private static final String DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
    static final String MERGE = "merge";
    static final String REPLACE = "replace";
    static final String DELETE = "delete";
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private StrategicMergePatch() {
    }

    /** {@code original} (left unchanged) with {@code patch} applied, by the merge keys of {@code kind}. */
    static JsonNode apply(Kind kind, JsonNode original, JsonNode patch) {
        Schema schema = kind.schema();
        if (!schema.known()) {
            throw new ApiError(501, "NotImplemented", "the test kit has no OpenAPI document of "
                    + kind.type.apiVersion() + ", so the simulated API server does not know how a strategic merge "
                    + "patch merges the lists of " + kind.type.kind() + " (use a JSON merge patch, a JSON patch or "
                    + "server-side apply)", null, null);
        }
        if (patch.isNull()) {
            return original.deepCopy();
        }
        if (!patch.isObject()) {
            throw ApiError.badRequest("json: cannot unmarshal " + jsonType(patch)
                    + " into Go value of type map[string]interface {}");
        }
        ObjectNode result = mergeMap((ObjectNode) original.deepCopy(), (ObjectNode) patch.deepCopy(), schema);
        dropDirectiveKeys(result);
        return result;
    }

    static ObjectNode mergeMap(ObjectNode original, ObjectNode patch, Schema schema) {
        JsonNode directive = patch.get(PATCH);
        if (directive != null) {
            if (isText(directive, REPLACE)) {
                patch.remove(PATCH);
                return patch;
            }
            if (isText(directive, DELETE)) {
                return NODES.objectNode();
            }
            throw internalError("unknown patch type: " + GoFormat.text(directive) + " in map: " + GoFormat.of(patch));
        }
        retainKeys(original, patch);
        StrategicMergeList.setElementOrders(original, patch, schema);
        for (String key : new ArrayList<>(patch.propertyNames())) {
            JsonNode value = patch.get(key);
            boolean deletions = key.startsWith(DELETE_FROM_PRIMITIVE_LIST);
            String field = deletions ? fieldOf(key, DELETE_FROM_PRIMITIVE_LIST, "invalid patch format of primitive list")
                    : key;
            if (value.isNull()) {
                original.remove(field);
                continue;
            }
            JsonNode current = original.get(field);
            if (current == null || current.getNodeType() != value.getNodeType()) {
                if (!deletions) {
                    discardNulls(value);
                    JsonNode kept = withoutDirectives(value);
                    if (kept == null) {
                        original.remove(field);
                    } else {
                        original.set(field, kept);
                    }
                }
            } else if (current.isObject()) {
                Schema child = schema.property(field);
                original.set(field, REPLACE.equals(strategy(child)) ? value
                        : mergeMap((ObjectNode) current, (ObjectNode) value, child));
            } else if (current.isArray()) {
                original.set(field, array(StrategicMergeList.mergeList(items(current), items(value), schema.property(field),
                        deletions)));
            } else {
                original.set(field, value);
            }
        }
        return original;
    }

    /** {@code $retainKeys}: every key the patch sets must be listed; the original's unlisted keys go. */
    private static void retainKeys(ObjectNode original, ObjectNode patch) {
        JsonNode retain = patch.remove(RETAIN_KEYS);
        if (retain == null) {
            return;
        }
        if (!retain.isArray()) {
            throw ApiError.badRequest("invalid patch format of retainKeys");
        }
        Set<String> kept = new HashSet<>();
        retain.forEach(k -> {
            if (k.isString()) {
                kept.add(k.asString());
            }
        });
        for (Map.Entry<String, JsonNode> e : patch.properties()) {
            if (!e.getValue().isNull() && !e.getKey().startsWith(DELETE_FROM_PRIMITIVE_LIST)
                    && !e.getKey().startsWith(SET_ELEMENT_ORDER) && !kept.contains(e.getKey())) {
                throw ApiError.badRequest("invalid patch format of retainKeys");
            }
        }
        original.retain(kept);
    }

    /** The field's strategy besides {@code retainKeys}: {@code merge}, {@code replace} or "". */
    static String strategy(Schema field) {
        Set<String> strategies = new HashSet<>(field.patchStrategies());
        strategies.remove("retainKeys");
        if (strategies.size() > 1) {
            throw internalError("unexpected patch strategy: " + strategies);
        }
        return strategies.isEmpty() ? "" : strategies.iterator().next();
    }

    static String fieldOf(String key, String prefix, String malformed) {
        int slash = key.indexOf('/');
        if (slash < 0 || !key.substring(0, slash).equals(prefix)) {
            throw ApiError.badRequest(malformed);
        }
        return key.substring(slash + 1);
    }

    /** A value the patch adds: maps carrying {@code $patch} go, in lists too. Null when the value itself goes. */
    static JsonNode withoutDirectives(JsonNode value) {
        if (value.isObject()) {
            if (value.has(PATCH)) {
                return null;
            }
            ObjectNode object = (ObjectNode) value;
            for (String key : new ArrayList<>(object.propertyNames())) {
                JsonNode kept = withoutDirectives(object.get(key));
                if (kept == null) {
                    object.remove(key);
                } else {
                    object.set(key, kept);
                }
            }
            return object;
        }
        if (value.isArray()) {
            ArrayNode kept = NODES.arrayNode();
            for (JsonNode item : value) {
                JsonNode k = withoutDirectives(item);
                if (k != null) {
                    kept.add(k);
                }
            }
            return kept;
        }
        return value;
    }

    private static void discardNulls(JsonNode value) {
        if (value.isObject()) {
            ObjectNode object = (ObjectNode) value;
            for (String key : new ArrayList<>(object.propertyNames())) {
                if (object.get(key).isNull()) {
                    object.remove(key);
                } else {
                    discardNulls(object.get(key));
                }
            }
        } else if (value.isArray()) {
            value.forEach(StrategicMergePatch::discardNulls);
        }
    }

    /**
     * Removes the {@code $} keys left (in items a list took over whole, or under a replaced map): the real
     * server's decoding into the Go type drops them as unknown fields.
     */
    private static void dropDirectiveKeys(JsonNode node) {
        if (node.isObject()) {
            ObjectNode object = (ObjectNode) node;
            for (String key : new ArrayList<>(object.propertyNames())) {
                if (key.startsWith("$")) {
                    object.remove(key);
                }
            }
            object.forEach(StrategicMergePatch::dropDirectiveKeys);
        } else if (node.isArray()) {
            node.forEach(StrategicMergePatch::dropDirectiveKeys);
        }
    }

    static boolean isText(JsonNode node, String text) {
        return node.isString() && node.asString().equals(text);
    }

    static List<JsonNode> items(JsonNode array) {
        List<JsonNode> items = new ArrayList<>(array.size());
        array.forEach(items::add);
        return items;
    }

    static ArrayNode array(List<JsonNode> items) {
        ArrayNode array = NODES.arrayNode();
        items.forEach(array::add);
        return array;
    }

    private static String jsonType(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "array";
            case STRING -> "string";
            case NUMBER -> "number";
            case BOOLEAN -> "bool";
            default -> "object";
        };
    }

}
