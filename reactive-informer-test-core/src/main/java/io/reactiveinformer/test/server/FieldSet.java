package io.reactiveinformer.test.server;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A set of field paths, as structured-merge-diff keeps what a field manager owns: each path a list of
 * elements in FieldsV1 form ({@code f:name} a field, {@code k:{"name":"x"}} an item of a map-list by its
 * keys, {@code v:"x"} an item of a set-list, {@code i:0} an item by index). Like structured-merge-diff's
 * {@code Set}, a node holds the elements that end a path here (members) and the subtrees of longer
 * paths (children): {@code .spec.containers[name="x"]} can be a member and have children at once,
 * which FieldsV1 writes as {@code ".": {}}. Mutable; one instance belongs to one write.
 */
final class FieldSet {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    /** The order structured-merge-diff sorts path elements in: fields, keys, values, indexes. */
    static final Comparator<String> ELEMENT_ORDER = Comparator.<String>comparingInt(FieldSet::rank)
            .thenComparing(e -> e.startsWith("i:") ? String.format("%020d", Long.parseLong(e.substring(2))) : e);

    private final TreeSet<String> members = new TreeSet<>(ELEMENT_ORDER);
    private final TreeMap<String, FieldSet> children = new TreeMap<>(ELEMENT_ORDER);

    private static int rank(String element) {
        return switch (element.charAt(0)) {
            case 'f' -> 0;
            case 'k' -> 1;
            case 'v' -> 2;
            default -> 3;
        };
    }

    /** A set of the given paths (each a list of elements). */
    static FieldSet of(List<List<String>> paths) {
        FieldSet set = new FieldSet();
        paths.forEach(set::insert);
        return set;
    }

    void insert(List<String> path) {
        if (path.isEmpty()) {
            return;
        }
        FieldSet node = this;
        for (int i = 0; i < path.size() - 1; i++) {
            node = node.children.computeIfAbsent(path.get(i), e -> new FieldSet());
        }
        node.members.add(path.get(path.size() - 1));
    }

    boolean contains(List<String> path) {
        FieldSet node = this;
        for (int i = 0; i < path.size() - 1; i++) {
            node = node.children.get(path.get(i));
            if (node == null) {
                return false;
            }
        }
        return !path.isEmpty() && node.members.contains(path.get(path.size() - 1));
    }

    boolean isEmpty() {
        return members.isEmpty() && children.isEmpty();
    }

    /** The subset under {@code element} (empty when none). */
    FieldSet child(String element) {
        FieldSet child = children.get(element);
        return child == null ? new FieldSet() : child;
    }

    boolean hasMember(String element) {
        return members.contains(element);
    }

    /** The elements of this level that are members or lead to longer paths, in element order. */
    TreeSet<String> elements() {
        TreeSet<String> all = new TreeSet<>(ELEMENT_ORDER);
        all.addAll(members);
        all.addAll(children.keySet());
        return all;
    }

    FieldSet copy() {
        return new FieldSet().union(this);
    }

    /** Adds every path of {@code other}; returns this set. */
    FieldSet union(FieldSet other) {
        members.addAll(other.members);
        other.children.forEach((e, c) -> children.computeIfAbsent(e, k -> new FieldSet()).union(c));
        return this;
    }

    /** Removes every path of {@code other} (only those paths, not what lies below them); returns this set. */
    FieldSet removeAll(FieldSet other) {
        members.removeAll(other.members);
        other.children.forEach((e, c) -> {
            FieldSet mine = children.get(e);
            if (mine != null && mine.removeAll(c).isEmpty()) {
                children.remove(e);
            }
        });
        return this;
    }

    /** Removes every path of {@code other} and every path below one; returns this set. */
    FieldSet removeWithin(FieldSet other) {
        for (String e : other.members) {
            members.remove(e);
            children.remove(e);
        }
        other.children.forEach((e, c) -> {
            FieldSet mine = children.get(e);
            if (mine != null && mine.removeWithin(c).isEmpty()) {
                children.remove(e);
            }
        });
        return this;
    }

    /** The paths in both sets. */
    FieldSet intersection(FieldSet other) {
        FieldSet out = new FieldSet();
        for (String e : members) {
            if (other.members.contains(e)) {
                out.members.add(e);
            }
        }
        children.forEach((e, c) -> {
            FieldSet theirs = other.children.get(e);
            if (theirs != null) {
                FieldSet both = c.intersection(theirs);
                if (!both.isEmpty()) {
                    out.children.put(e, both);
                }
            }
        });
        return out;
    }

    /** Every path, in structured-merge-diff's order: a level's members first, then its children's paths. */
    List<List<String>> paths() {
        List<List<String>> out = new ArrayList<>();
        collect(new ArrayList<>(), out);
        return out;
    }

    private void collect(List<String> prefix, List<List<String>> out) {
        for (String e : members) {
            List<String> path = new ArrayList<>(prefix);
            path.add(e);
            out.add(path);
        }
        children.forEach((e, c) -> {
            prefix.add(e);
            c.collect(prefix, out);
            prefix.remove(prefix.size() - 1);
        });
    }

    /** This set as a {@code fieldsV1} tree. */
    ObjectNode toFieldsV1() {
        ObjectNode out = MAPPER.createObjectNode();
        for (String e : elements()) {
            FieldSet child = children.get(e);
            ObjectNode node = child == null ? MAPPER.createObjectNode() : child.toFieldsV1();
            if (child != null && members.contains(e)) {
                ObjectNode withSelf = MAPPER.createObjectNode();
                withSelf.putObject(".");
                withSelf.setAll(node);
                node = withSelf;
            }
            out.set(e, node);
        }
        return out;
    }

    /** The set a {@code fieldsV1} tree describes. */
    static FieldSet fromFieldsV1(JsonNode fields) {
        FieldSet set = new FieldSet();
        for (Map.Entry<String, JsonNode> e : fields.properties()) {
            JsonNode value = e.getValue();
            if (value.isEmpty()) {
                set.members.add(e.getKey());
                continue;
            }
            if (value.has(".")) {
                set.members.add(e.getKey());
            }
            FieldSet child = new FieldSet();
            for (Map.Entry<String, JsonNode> inner : value.properties()) {
                if (!inner.getKey().equals(".")) {
                    ObjectNode one = MAPPER.createObjectNode();
                    one.set(inner.getKey(), inner.getValue());
                    child.union(fromFieldsV1(one));
                }
            }
            if (!child.isEmpty()) {
                set.children.put(e.getKey(), child);
            }
        }
        return set;
    }

    /**
     * A path as structured-merge-diff prints it in a conflict: {@code .spec.replicas},
     * {@code .spec.containers[name="x"]}, {@code .metadata.finalizers[="x"]}.
     */
    static String pathString(List<String> path) {
        StringBuilder b = new StringBuilder();
        for (String e : path) {
            String body = e.substring(2);
            switch (e.charAt(0)) {
                case 'f' -> b.append('.').append(body);
                case 'k' -> {
                    List<String> keys = new ArrayList<>();
                    MAPPER.readTree(body).properties().forEach(k -> keys.add(k.getKey() + "=" + k.getValue()));
                    b.append('[').append(String.join(",", keys)).append(']');
                }
                case 'v' -> b.append("[=").append(body).append(']');
                default -> b.append('[').append(body).append(']');
            }
        }
        return b.toString();
    }

    /**
     * The element naming {@code item} in a list of schema {@code list}: its keys for a map-list (a key
     * left out takes the schema's default), its value for a set-list, else its {@code index}.
     */
    static String itemElement(JsonNode item, Schema list, int index) {
        if ("map".equals(list.listType()) && !list.listMapKeys().isEmpty() && item.isObject()) {
            TreeMap<String, JsonNode> keys = new TreeMap<>();
            for (String key : list.listMapKeys()) {
                JsonNode value = item.get(key);
                if (value == null || value.isNull()) {
                    value = list.items().property(key).raw().get("default");
                }
                if (value != null) {
                    keys.put(key, value);
                }
            }
            ObjectNode k = MAPPER.createObjectNode();
            keys.forEach(k::set);
            return "k:" + MAPPER.writeValueAsString(k);
        }
        if ("set".equals(list.listType())) {
            return "v:" + MAPPER.writeValueAsString(item);
        }
        return "i:" + index;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FieldSet other && members.equals(other.members) && children.equals(other.children);
    }

    @Override
    public int hashCode() {
        return members.hashCode() * 31 + children.hashCode();
    }

    @Override
    public String toString() {
        return toFieldsV1().toString();
    }
}
