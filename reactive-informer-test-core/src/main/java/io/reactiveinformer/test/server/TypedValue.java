package io.reactiveinformer.test.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * structured-merge-diff's operations on an object read through its {@link Schema}: the fields a value
 * sets, what changed between two values, the merge of an applied configuration into a live object,
 * and the removal of fields. The schema decides how each part is seen: a granular map or struct field
 * by field, a map-list item by item (by its keys), a set-list value by value, an atomic list or an
 * atomic map (and any scalar) as one leaf. Stateless.
 */
final class TypedValue {

    /** What changed from one value to another: paths removed, modified in place, and added. */
    record Comparison(FieldSet removed, FieldSet modified, FieldSet added) {

        /** Paths modified or added: what another manager's ownership conflicts with. */
        FieldSet changed() {
            return modified.copy().union(added);
        }

        /** Forgets the paths in and below {@code ignored} (fields the write resets, as status for a main resource). */
        Comparison without(FieldSet ignored) {
            return new Comparison(removed.removeWithin(ignored), modified.removeWithin(ignored),
                    added.removeWithin(ignored));
        }
    }

    private TypedValue() {
    }

    /**
     * The fields {@code value} sets (structured-merge-diff's {@code ToFieldSet}): every leaf, every list
     * item, and every map entry that is not a declared struct field (a struct field is implied by its
     * children, unless it is empty or null).
     */
    static FieldSet fields(JsonNode value, Schema schema) {
        FieldSet set = new FieldSet();
        collectFields(new ArrayList<>(), value, schema, set);
        return set;
    }

    private static void collectFields(List<String> path, JsonNode value, Schema schema, FieldSet out) {
        if (isLeaf(value, schema)) {
            out.insert(path);
            return;
        }
        if (value.isObject()) {
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                path.add("f:" + e.getKey());
                JsonNode child = e.getValue();
                collectFields(path, child, schema.property(e.getKey()), out);
                if (child.isNull() || (child.isObject() && child.isEmpty()) || !declares(schema, e.getKey())) {
                    out.insert(path);
                }
                path.remove(path.size() - 1);
            }
        } else {
            int i = 0;
            for (JsonNode item : value) {
                path.add(FieldSet.itemElement(item, schema, i++));
                collectFields(path, item, schema.items(), out);
                out.insert(path);
                path.remove(path.size() - 1);
            }
        }
    }

    /** Compares {@code before} with {@code after} (either may be null: created, deleted). */
    static Comparison compare(JsonNode before, JsonNode after, Schema schema) {
        Comparison c = new Comparison(new FieldSet(), new FieldSet(), new FieldSet());
        compare(new ArrayList<>(), before, after, schema, c);
        return c;
    }

    private static void compare(List<String> path, JsonNode l, JsonNode r, Schema schema, Comparison out) {
        if (l == null && r == null) {
            return;
        }
        boolean sameShape = l == null || r == null || (l.isObject() && r.isObject()) || (l.isArray() && r.isArray());
        if (!sameShape || isLeaf(l != null ? l : r, schema)) {
            if (l == null) {
                out.added().insert(path);
            } else if (r == null) {
                out.removed().insert(path);
            } else if (!l.equals(r)) {
                out.modified().insert(path);
            }
            return;
        }
        if ((l != null ? l : r).isObject()) {
            Set<String> keys = new LinkedHashSet<>();
            if (l != null) {
                keys.addAll(l.propertyNames());
            }
            if (r != null) {
                keys.addAll(r.propertyNames());
            }
            for (String key : keys) {
                path.add("f:" + key);
                compare(path, l == null ? null : l.get(key), r == null ? null : r.get(key), schema.property(key), out);
                path.remove(path.size() - 1);
            }
        } else {
            Map<String, List<JsonNode>> left = items(l, schema);
            Map<String, List<JsonNode>> right = items(r, schema);
            Set<String> elements = new LinkedHashSet<>(left.keySet());
            elements.addAll(right.keySet());
            for (String element : elements) {
                List<JsonNode> ls = left.getOrDefault(element, List.of());
                List<JsonNode> rs = right.getOrDefault(element, List.of());
                path.add(element);
                if (ls.size() > 1 || rs.size() > 1) {
                    if (!ls.equals(rs)) {
                        out.modified().insert(path);
                    }
                } else {
                    compare(path, ls.isEmpty() ? null : ls.get(0), rs.isEmpty() ? null : rs.get(0), schema.items(), out);
                }
                path.remove(path.size() - 1);
            }
        }
        if (!path.isEmpty() && l == null) {
            out.added().insert(path);
        } else if (!path.isEmpty() && r == null) {
            out.removed().insert(path);
        }
    }

    /**
     * The applied configuration {@code config} merged into {@code live}: the configuration's values win;
     * granular maps merge field by field, map- and set-lists item by item (shared items in the
     * configuration's order, the live object's other items where they were); atomic parts are replaced.
     * A null in the configuration removes the field.
     */
    static JsonNode merge(JsonNode live, JsonNode config, Schema schema) {
        if (config == null) {
            return live;
        }
        if (live == null || isLeaf(config, schema)
                || !((live.isObject() && config.isObject()) || (live.isArray() && config.isArray()))) {
            return config.isObject() || config.isArray() ? withoutNulls(config.deepCopy()) : config;
        }
        if (config.isObject()) {
            ObjectNode out = ((ObjectNode) live).deepCopy();
            for (Map.Entry<String, JsonNode> e : config.properties()) {
                if (e.getValue().isNull()) {
                    out.remove(e.getKey());
                } else {
                    out.set(e.getKey(), merge(live.get(e.getKey()), e.getValue(), schema.property(e.getKey())));
                }
            }
            return out;
        }
        return mergeItems(live, config, schema);
    }

    /** structured-merge-diff's list merge: walks both lists, taking shared items in the configuration's order. */
    private static ArrayNode mergeItems(JsonNode live, JsonNode config, Schema schema) {
        List<String> lElements = elements(live, schema);
        List<String> rElements = elements(config, schema);
        Map<String, JsonNode> lItems = firstItems(live, lElements);
        Map<String, JsonNode> rItems = firstItems(config, rElements);
        ArrayDeque<String> sharedOrder = new ArrayDeque<>();
        rElements.stream().filter(lItems::containsKey).forEach(sharedOrder::add);
        String nextShared = sharedOrder.poll();
        Set<String> mergedRight = new HashSet<>();
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        int li = 0;
        int ri = 0;
        while (li < lElements.size() || ri < rElements.size()) {
            if (li < lElements.size() && ri < rElements.size()) {
                String e = lElements.get(li);
                if (e.equals(rElements.get(ri))) {
                    mergedRight.add(e);
                    out.add(merge(lItems.get(e), rItems.get(e), schema.items()));
                    li++;
                    ri++;
                    nextShared = sharedOrder.poll();
                    continue;
                }
                if (rItems.containsKey(e) && nextShared != null && !nextShared.equals(e)) {
                    li++;
                    continue;
                }
            }
            if (li < lElements.size()) {
                String e = lElements.get(li);
                if (!rItems.containsKey(e)) {
                    out.add(live.get(li).deepCopy());
                    li++;
                    continue;
                }
                if (mergedRight.contains(e)) {
                    li++;
                    continue;
                }
            }
            if (ri < rElements.size()) {
                String e = rElements.get(ri);
                mergedRight.add(e);
                out.add(merge(lItems.get(e), rItems.get(e), schema.items()));
                ri++;
                if (e.equals(nextShared)) {
                    nextShared = sharedOrder.poll();
                }
            }
        }
        return out;
    }

    /**
     * Removes from {@code value} (in place) each part a path of {@code set} names, with everything below
     * it; an object or list emptied this way stays, as structured-merge-diff leaves it.
     */
    static void removeItems(JsonNode value, FieldSet set, Schema schema) {
        if (value == null || set.isEmpty()) {
            return;
        }
        if (value instanceof ObjectNode object) {
            for (String element : set.elements()) {
                if (!element.startsWith("f:")) {
                    continue;
                }
                String name = element.substring(2);
                if (set.hasMember(element)) {
                    object.remove(name);
                } else {
                    removeItems(object.get(name), set.child(element), schema.property(name));
                }
            }
        } else if (value instanceof ArrayNode list) {
            List<String> elements = elements(list, schema);
            for (int i = elements.size() - 1; i >= 0; i--) {
                if (set.hasMember(elements.get(i))) {
                    list.remove(i);
                } else {
                    removeItems(list.get(i), set.child(elements.get(i)), schema.items());
                }
            }
        }
    }

    /**
     * {@code set} with every declared struct field that has owned children counted as owned itself
     * (structured-merge-diff's {@code EnsureNamedFieldsAreMembers}), so that pruning a manager's fields
     * removes the struct field it alone set, but never a map's key it did not name.
     */
    static FieldSet withNamedFields(FieldSet set, Schema schema) {
        FieldSet out = set.copy();
        addNamedFields(new ArrayList<>(), set, schema, out);
        return out;
    }

    private static void addNamedFields(List<String> path, FieldSet set, Schema schema, FieldSet out) {
        for (String element : set.elements()) {
            FieldSet child = set.child(element);
            if (child.isEmpty()) {
                continue;
            }
            Schema childSchema;
            if (element.startsWith("f:")) {
                String name = element.substring(2);
                childSchema = schema.property(name);
                path.add(element);
                if (declares(schema, name)) {
                    out.insert(path);
                }
            } else {
                childSchema = schema.items();
                path.add(element);
            }
            addNamedFields(path, child, childSchema, out);
            path.remove(path.size() - 1);
        }
    }

    /** Whether {@code value} is one leaf: a scalar, an atomic list or an atomic map. */
    private static boolean isLeaf(JsonNode value, Schema schema) {
        if (value.isObject()) {
            return schema.atomicMap();
        }
        if (value.isArray()) {
            return "atomic".equals(schema.listType());
        }
        return true;
    }

    private static boolean declares(Schema schema, String field) {
        return schema.known() && schema.raw().path("properties").has(field);
    }

    private static List<String> elements(JsonNode list, Schema schema) {
        List<String> out = new ArrayList<>();
        int i = 0;
        for (JsonNode item : list) {
            out.add(FieldSet.itemElement(item, schema, i++));
        }
        return out;
    }

    private static Map<String, JsonNode> firstItems(JsonNode list, List<String> elements) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (int i = 0; i < elements.size(); i++) {
            out.putIfAbsent(elements.get(i), list.get(i));
        }
        return out;
    }

    private static Map<String, List<JsonNode>> items(JsonNode list, Schema schema) {
        Map<String, List<JsonNode>> out = new LinkedHashMap<>();
        if (list == null) {
            return out;
        }
        int i = 0;
        for (JsonNode item : list) {
            out.computeIfAbsent(FieldSet.itemElement(item, schema, i++), k -> new ArrayList<>()).add(item);
        }
        return out;
    }

    private static JsonNode withoutNulls(JsonNode node) {
        if (node instanceof ObjectNode object) {
            object.removeIf(JsonNode::isNull);
            object.forEach(TypedValue::withoutNulls);
        } else if (node instanceof ArrayNode array) {
            array.forEach(TypedValue::withoutNulls);
        }
        return node;
    }
}
