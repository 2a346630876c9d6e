package io.reactiveinformer.test.server;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.JsonNodeType;
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
 */
final class StrategicMergePatch {

    private static final String PATCH = "$patch";
    private static final String RETAIN_KEYS = "$retainKeys";
    private static final String SET_ELEMENT_ORDER = "$setElementOrder";
    private static final String DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
    private static final String MERGE = "merge";
    private static final String REPLACE = "replace";
    private static final String DELETE = "delete";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

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

    private static ObjectNode mergeMap(ObjectNode original, ObjectNode patch, Schema schema) {
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
        setElementOrders(original, patch, schema);
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
                original.set(field, array(mergeList(items(current), items(value), schema.property(field), deletions)));
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

    /**
     * {@code $setElementOrder/<field>}: merges the field's list now (taking it out of the patch) and puts
     * the listed items in the listed order, the others where the old order puts them.
     */
    private static void setElementOrders(ObjectNode original, ObjectNode patch, Schema schema) {
        for (String key : new ArrayList<>(patch.propertyNames())) {
            if (!key.startsWith(SET_ELEMENT_ORDER)) {
                continue;
            }
            JsonNode order = patch.remove(key);
            if (!order.isArray()) {
                throw badArgType("[]interface {}", order);
            }
            String field = fieldOf(key, SET_ELEMENT_ORDER, "invalid patch format of setElementOrder list");
            JsonNode current = original.get(field);
            JsonNode patched = patch.get(field);
            if (current != null && !current.isArray()) {
                throw badArgType("[]interface {}", current);
            }
            if (patched != null && !patched.isArray()) {
                throw badArgType("[]interface {}", patched);
            }
            if (!schema.allows(field)) {
                // the real message names the Go struct ("in struct PodSpec"), which the OpenAPI schema does not
                throw internalError("unable to find api field for the json field \"" + field + "\"");
            }
            Schema fieldSchema = schema.property(field);
            String mergeKey = fieldSchema.patchMergeKey();
            List<JsonNode> currentItems = current == null ? List.of() : items(current);
            List<JsonNode> patchItems = patched == null ? List.of() : items(patched);
            checkOrder(patchItems, items(order), mergeKey);
            List<JsonNode> merged;
            if (current != null && patched != null) {
                merged = mergeList(currentItems, patchItems, fieldSchema, false);
            } else if (patched != null) {
                merged = items(withoutDirectives(patched));
            } else if (current != null) {
                merged = currentItems;
            } else {
                continue;
            }
            boolean maps = elementType(currentItems, patchItems) == JsonNodeType.OBJECT;
            List<List<JsonNode>> parts = partition(merged, items(order), mergeKey);
            original.set(field, array(ordered(parts.get(0), parts.get(1), items(order), currentItems, mergeKey, maps)));
            patch.remove(field);
        }
    }

    /** The items of the patch (deletions aside) must come in the order {@code $setElementOrder} lists them. */
    private static void checkOrder(List<JsonNode> patchItems, List<JsonNode> order, String mergeKey) {
        if (order.isEmpty() || patchItems.isEmpty()) {
            return;
        }
        List<JsonNode> kept = mergeKey.isEmpty() ? patchItems : withoutDeletions(patchItems).get(0);
        int p = 0;
        int o = 0;
        while (p < kept.size() && o < order.size()) {
            if (kept.get(p).isObject() && kept.get(p).has(PATCH)) {
                p++;
                continue;
            }
            if (sameKey(kept.get(p), order.get(o), mergeKey)) {
                p++;
            }
            o++;
        }
        if (p < kept.size()) {
            throw internalError("The order in patch list:\n" + GoFormat.list(patchItems) + "\n doesn't match "
                    + SET_ELEMENT_ORDER + " list:\n" + GoFormat.list(order) + "\n");
        }
    }

    private static boolean sameKey(JsonNode left, JsonNode right, String mergeKey) {
        if (mergeKey.isEmpty()) {
            return left.equals(right);
        }
        return Objects.equals(mergeKeyOf(left, mergeKey), mergeKeyOf(right, mergeKey));
    }

    private static JsonNode mergeKeyOf(JsonNode item, String mergeKey) {
        if (!item.isObject()) {
            throw badArgType("map[string]interface {}", item);
        }
        JsonNode value = item.get(mergeKey);
        if (value == null) {
            throw noMergeKey(item, mergeKey);
        }
        return value;
    }

    private static List<JsonNode> mergeList(List<JsonNode> original, List<JsonNode> patch, Schema field,
                                            boolean deletions) {
        if (MERGE.equals(strategy(field)) || deletions) {
            return mergeItems(original, patch, field.items(), field.patchMergeKey(), deletions);
        }
        return patch;
    }

    private static List<JsonNode> mergeItems(List<JsonNode> original, List<JsonNode> patch, Schema items,
                                             String mergeKey, boolean deletions) {
        if (original.isEmpty() && patch.isEmpty()) {
            return original;
        }
        boolean maps = elementType(original, patch) == JsonNodeType.OBJECT;
        List<JsonNode> remaining = original;
        List<JsonNode> patchItems = patch;
        List<JsonNode> merged;
        if (!maps) {
            if (deletions) {
                List<JsonNode> kept = new ArrayList<>(original);
                kept.removeIf(patch::contains);
                return kept;
            }
            List<JsonNode> both = new ArrayList<>(original);
            both.addAll(patch);
            merged = deduplicated(both);
        } else {
            if (mergeKey.isEmpty()) {
                throw internalError("cannot merge lists without merge key for struct");
            }
            remaining = new ArrayList<>(original);
            patchItems = new ArrayList<>();
            boolean replace = false;
            for (JsonNode item : patch) {
                JsonNode directive = item.get(PATCH);
                if (directive == null) {
                    patchItems.add(item);
                } else if (isText(directive, DELETE)) {
                    JsonNode key = item.get(mergeKey);
                    if (key == null) {
                        throw noMergeKey(item, mergeKey);
                    }
                    remaining.removeIf(existing -> key.equals(mapItem(existing).get(mergeKey)));
                } else if (isText(directive, REPLACE)) {
                    replace = true;
                } else if (isText(directive, MERGE)) {
                    throw internalError("merging lists cannot yet be specified in the patch");
                } else {
                    throw internalError("unknown patch type: " + GoFormat.text(directive) + " in map: "
                            + GoFormat.of(item));
                }
            }
            if (replace) {
                remaining = patchItems;
                patchItems = List.of();
            }
            merged = new ArrayList<>(remaining);
            for (JsonNode item : patchItems) {
                JsonNode key = mergeKeyOf(item, mergeKey);
                int at = indexByKey(merged, key, mergeKey);
                if (at >= 0) {
                    merged.set(at, mergeMap((ObjectNode) merged.get(at), (ObjectNode) item, items));
                } else {
                    merged.add(item);
                }
            }
        }
        List<List<JsonNode>> parts = partition(merged, patchItems, mergeKey);
        return ordered(parts.get(0), parts.get(1), patchItems, remaining, mergeKey, maps);
    }

    private static int indexByKey(List<JsonNode> items, JsonNode key, String mergeKey) {
        for (int i = 0; i < items.size(); i++) {
            if (key.equals(mapItem(items.get(i)).get(mergeKey))) {
                return i;
            }
        }
        return -1;
    }

    private static ObjectNode mapItem(JsonNode item) {
        if (!item.isObject()) {
            throw internalError("value for key " + item + " is not a map");
        }
        return (ObjectNode) item;
    }

    /** The items also in {@code by} (by value, or by merge key) and those not, each in its order. */
    private static List<List<JsonNode>> partition(List<JsonNode> merged, List<JsonNode> by, String mergeKey) {
        List<JsonNode> in = new ArrayList<>();
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode item : merged) {
            boolean found;
            if (mergeKey.isEmpty()) {
                found = by.contains(item);
            } else {
                JsonNode key = mergeKeyOf(item, mergeKey);
                found = indexByKey(by, key, mergeKey) >= 0;
            }
            (found ? in : out).add(item);
        }
        return List.of(in, out);
    }

    /**
     * The patch's items sorted by {@code patchOrder} and the server-only ones by {@code serverOrder}, then
     * interleaved: a server-only item goes before the next patch item when the old list had it before.
     */
    private static List<JsonNode> ordered(List<JsonNode> patchItems, List<JsonNode> serverOnly,
                                          List<JsonNode> patchOrder, List<JsonNode> serverOrder, String mergeKey,
                                          boolean maps) {
        List<JsonNode> right = sortedBy(patchItems, patchOrder, mergeKey, maps);
        List<JsonNode> left = sortedBy(serverOnly, serverOrder, mergeKey, maps);
        List<JsonNode> all = new ArrayList<>(left.size() + right.size());
        int i = 0;
        int j = 0;
        while (i < left.size() || j < right.size()) {
            if (j >= right.size()) {
                all.add(left.get(i++));
            } else if (i >= left.size()) {
                all.add(right.get(j++));
            } else {
                int li = indexIn(serverOrder, left.get(i), mergeKey, maps);
                int ri = indexIn(serverOrder, right.get(j), mergeKey, maps);
                all.add(li >= 0 && ri >= 0 && li < ri ? left.get(i++) : right.get(j++));
            }
        }
        return all;
    }

    private static List<JsonNode> sortedBy(List<JsonNode> items, List<JsonNode> order, String mergeKey, boolean maps) {
        List<JsonNode> toSort = items;
        List<JsonNode> deletions = List.of();
        if (maps) {
            for (List<JsonNode> list : List.of(items, order)) {
                list.forEach(item -> mergeKeyOf(item, mergeKey));
            }
            List<List<JsonNode>> parts = withoutDeletions(items);
            toSort = parts.get(0);
            deletions = parts.get(1);
        }
        List<JsonNode> sorted = new ArrayList<>(toSort);
        sorted.sort(Comparator.comparingInt(item -> {
            int at = indexIn(order, item, mergeKey, maps);
            return at < 0 ? Integer.MAX_VALUE : at;
        }));
        sorted.addAll(deletions);
        return sorted;
    }

    /** Items without and with {@code $patch: delete}. */
    private static List<List<JsonNode>> withoutDeletions(List<JsonNode> items) {
        List<JsonNode> kept = new ArrayList<>();
        List<JsonNode> deleted = new ArrayList<>();
        for (JsonNode item : items) {
            if (!item.isObject()) {
                throw badArgType("map[string]interface {}", item);
            }
            (isText(item.path(PATCH), DELETE) ? deleted : kept).add(item);
        }
        return List.of(kept, deleted);
    }

    private static int indexIn(List<JsonNode> list, JsonNode item, String mergeKey, boolean maps) {
        JsonNode value = maps ? item.get(mergeKey) : item;
        for (int i = 0; i < list.size(); i++) {
            JsonNode other = maps ? list.get(i).get(mergeKey) : list.get(i);
            if (Objects.equals(value, other)) {
                return i;
            }
        }
        return -1;
    }

    /** Duplicates removed the way apimachinery does (a duplicate is replaced by the last item). */
    private static List<JsonNode> deduplicated(List<JsonNode> items) {
        List<JsonNode> s = new ArrayList<>(items);
        int last = s.size() - 1;
        for (int i = 0; i < last; i++) {
            for (int j = i + 1; j <= last; j++) {
                if (s.get(i).equals(s.get(j))) {
                    s.set(j, s.get(last));
                    s.remove(last);
                    last--;
                    j--;
                }
            }
        }
        return s;
    }

    /** The one type of the items of both lists: 422 for lists of lists, 500 for mixed types. */
    private static JsonNodeType elementType(List<JsonNode> original, List<JsonNode> patch) {
        JsonNodeType type = null;
        for (List<JsonNode> list : List.of(original, patch)) {
            for (JsonNode item : list) {
                if (type == null) {
                    type = item.getNodeType();
                    if (type == JsonNodeType.ARRAY) {
                        // the real server answers this error of the patch library with a generic 422
                        throw new ApiError(422, "Invalid",
                                "the server rejected our request due to an error in our request", null, null);
                    }
                } else if (type != item.getNodeType()) {
                    throw internalError("list element types are not identical: ["
                            + GoFormat.list(original) + " " + GoFormat.list(patch) + "]");
                }
            }
        }
        if (type == null) {
            throw internalError("no elements in any of the given slices");
        }
        return type;
    }

    /** The field's strategy besides {@code retainKeys}: {@code merge}, {@code replace} or "". */
    private static String strategy(Schema field) {
        Set<String> strategies = new HashSet<>(field.patchStrategies());
        strategies.remove("retainKeys");
        if (strategies.size() > 1) {
            throw internalError("unexpected patch strategy: " + strategies);
        }
        return strategies.isEmpty() ? "" : strategies.iterator().next();
    }

    private static String fieldOf(String key, String prefix, String malformed) {
        int slash = key.indexOf('/');
        if (slash < 0 || !key.substring(0, slash).equals(prefix)) {
            throw ApiError.badRequest(malformed);
        }
        return key.substring(slash + 1);
    }

    /** A value the patch adds: maps carrying {@code $patch} go, in lists too. Null when the value itself goes. */
    private static JsonNode withoutDirectives(JsonNode value) {
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

    private static boolean isText(JsonNode node, String text) {
        return node.isString() && node.asString().equals(text);
    }

    private static List<JsonNode> items(JsonNode array) {
        List<JsonNode> items = new ArrayList<>(array.size());
        array.forEach(items::add);
        return items;
    }

    private static ArrayNode array(List<JsonNode> items) {
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

    /** The real server answers an error of the patch library it does not classify with a bare 500. */
    private static ApiError internalError(String message) {
        return new ApiError(500, null, message, null, null);
    }

    private static ApiError noMergeKey(JsonNode item, String mergeKey) {
        return internalError("map: " + GoFormat.of(item) + " does not contain declared merge key: " + mergeKey);
    }

    private static ApiError badArgType(String expected, JsonNode actual) {
        return internalError("expected a " + expected + ", but received a " + GoFormat.type(actual));
    }

    /** JSON values as Go's {@code %v} prints the maps and slices they decode to, for the real messages. */
    private static final class GoFormat {

        private GoFormat() {
        }

        static String of(JsonNode node) {
            if (node.isObject()) {
                Map<String, JsonNode> sorted = new TreeMap<>();
                node.properties().forEach(e -> sorted.put(e.getKey(), e.getValue()));
                StringBuilder out = new StringBuilder("map[");
                sorted.forEach((k, v) -> out.append(out.length() > 4 ? " " : "").append(k).append(':').append(of(v)));
                return out.append(']').toString();
            }
            if (node.isArray()) {
                return list(items(node));
            }
            if (node.isNull()) {
                return "<nil>";
            }
            if (node.isNumber()) {
                BigDecimal value = node.decimalValue();
                return value.abs().compareTo(BigDecimal.valueOf(1e21)) < 0 ? value.stripTrailingZeros().toPlainString()
                        : String.valueOf(node.doubleValue());
            }
            return node.asString();
        }

        static String list(List<JsonNode> items) {
            StringBuilder out = new StringBuilder("[");
            for (JsonNode item : items) {
                out.append(out.length() > 1 ? " " : "").append(of(item));
            }
            return out.append(']').toString();
        }

        /** A directive's value as Go's {@code %s} prints it. */
        static String text(JsonNode node) {
            return node.isString() ? node.asString() : "%!s(" + type(node) + "=" + of(node) + ")";
        }

        /** The Go type a JSON value decodes to. */
        static String type(JsonNode node) {
            return switch (node.getNodeType()) {
                case OBJECT -> "map[string]interface {}";
                case ARRAY -> "[]interface {}";
                case STRING -> "string";
                case NUMBER -> "float64";
                case BOOLEAN -> "bool";
                default -> "%!s(<nil>)";
            };
        }
    }
}
