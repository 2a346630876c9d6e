package io.reactiveinformer.test.server;

import static io.reactiveinformer.test.server.StrategicMergeErrors.badArgType;
import static io.reactiveinformer.test.server.StrategicMergeErrors.internalError;
import static io.reactiveinformer.test.server.StrategicMergeErrors.noMergeKey;
import static io.reactiveinformer.test.server.StrategicMergePatch.DELETE;
import static io.reactiveinformer.test.server.StrategicMergePatch.MERGE;
import static io.reactiveinformer.test.server.StrategicMergePatch.PATCH;
import static io.reactiveinformer.test.server.StrategicMergePatch.REPLACE;
import static io.reactiveinformer.test.server.StrategicMergePatch.SET_ELEMENT_ORDER;
import static io.reactiveinformer.test.server.StrategicMergePatch.array;
import static io.reactiveinformer.test.server.StrategicMergePatch.fieldOf;
import static io.reactiveinformer.test.server.StrategicMergePatch.isText;
import static io.reactiveinformer.test.server.StrategicMergePatch.items;
import static io.reactiveinformer.test.server.StrategicMergePatch.mergeMap;
import static io.reactiveinformer.test.server.StrategicMergePatch.strategy;
import static io.reactiveinformer.test.server.StrategicMergePatch.withoutDirectives;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeType;
import tools.jackson.databind.node.ObjectNode;

/**
 * The lists of a {@link StrategicMergePatch}: merged by their field's merge key (or as a union of
 * primitives), with deletions and replacement by directive, and ordered as the real server orders them:
 * {@code $setElementOrder/<field>} first, otherwise the patch's items in the patch's order and the items
 * only the server had in their old order, interleaved where the old order relates them.
 */
final class StrategicMergeList {

    private StrategicMergeList() {
    }

    /**
     * {@code $setElementOrder/<field>}: merges the field's list now (taking it out of the patch) and puts
     * the listed items in the listed order, the others where the old order puts them.
     */
    static void setElementOrders(ObjectNode original, ObjectNode patch, Schema schema) {
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

    static List<JsonNode> mergeList(List<JsonNode> original, List<JsonNode> patch, Schema field,
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
}
