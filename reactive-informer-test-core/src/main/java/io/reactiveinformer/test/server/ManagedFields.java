package io.reactiveinformer.test.server;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * An object's {@code metadata.managedFields}: per field manager, the fields it owns. A manager is known
 * by its name, its operation ({@code Apply} or {@code Update}), its subresource and, for an Update, the
 * apiVersion it wrote with, as kube-apiserver tells managers apart; the entries are written sorted as
 * kube-apiserver sorts them (operation, time in seconds, an entry without time first, manager,
 * apiVersion, subresource). Mutable; one instance belongs to one write.
 */
final class ManagedFields {

    static final String APPLY = "Apply";
    static final String UPDATE = "Update";

    /** Who owns a set of fields; {@code time} is null for an entry whose manager never changed the object. */
    record Entry(String manager, String operation, String apiVersion, String time, String subresource,
                 FieldSet fields) {

        Entry withFields(FieldSet newFields) {
            return new Entry(manager, operation, apiVersion, time, subresource, newFields);
        }

        Entry withTime(String newTime) {
            return new Entry(manager, operation, apiVersion, newTime, subresource, fields);
        }

        /** How a conflict names this manager: {@code "name"} for an applier, {@code "name" using v1} for an updater. */
        String describe() {
            String quoted = "\"" + manager + "\"";
            return operation.equals(APPLY) ? quoted : quoted + " using " + apiVersion;
        }
    }

    /** Tells managers apart as kube-apiserver does (an applier's apiVersion does not count). */
    record Id(String manager, String operation, String apiVersion, String subresource) {

        static Id apply(String manager, String subresource) {
            return new Id(manager, APPLY, "", subresource);
        }

        static Id update(String manager, String apiVersion, String subresource) {
            return new Id(manager, UPDATE, apiVersion, subresource);
        }
    }

    private static final Comparator<Entry> ORDER = Comparator.comparing(Entry::operation)
            .thenComparing(e -> e.time() == null ? "" : e.time())
            .thenComparing(Entry::manager)
            .thenComparing(Entry::apiVersion)
            .thenComparing(e -> e.subresource() == null ? "" : e.subresource());

    private final Map<Id, Entry> entries = new LinkedHashMap<>();

    /** The entries of {@code object}'s metadata (none when it has none). */
    static ManagedFields of(JsonNode object) {
        return ofEntries(object == null ? null : object.path("metadata").get("managedFields"));
    }

    /** The entries of a {@code managedFields} list. */
    static ManagedFields ofEntries(JsonNode list) {
        ManagedFields managed = new ManagedFields();
        if (list == null || !list.isArray()) {
            return managed;
        }
        for (JsonNode e : list) {
            String subresource = e.path("subresource").asString("");
            Entry entry = new Entry(e.path("manager").asString(""), e.path("operation").asString(""),
                    e.path("apiVersion").asString(""), e.path("time").asString(null), subresource,
                    FieldSet.fromFieldsV1(e.path("fieldsV1")));
            managed.entries.put(idOf(entry), entry);
        }
        return managed;
    }

    /**
     * Whether a write's {@code managedFields} asks to strip them all: an empty list, or a list of one
     * empty entry (what kube-apiserver documents as the way to reset them).
     */
    static boolean isReset(JsonNode list) {
        return list != null && list.isArray()
                && (list.isEmpty() || (list.size() == 1 && list.get(0).isObject() && list.get(0).isEmpty()));
    }

    private static Id idOf(Entry e) {
        return e.operation().equals(APPLY) ? Id.apply(e.manager(), e.subresource())
                : Id.update(e.manager(), e.apiVersion(), e.subresource());
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    Entry get(Id id) {
        return entries.get(id);
    }

    /** Sets {@code entry}, or removes it when it owns nothing. */
    void put(Entry entry) {
        if (entry.fields().isEmpty()) {
            entries.remove(idOf(entry));
        } else {
            entries.put(idOf(entry), entry);
        }
    }

    /** Every entry but {@code id}'s, in stored order. */
    List<Entry> others(Id id) {
        List<Entry> out = new ArrayList<>();
        entries.forEach((k, v) -> {
            if (!k.equals(id)) {
                out.add(v);
            }
        });
        return out;
    }

    /** What every manager owns together. */
    FieldSet union() {
        FieldSet all = new FieldSet();
        entries.values().forEach(e -> all.union(e.fields()));
        return all;
    }

    /** Writes the entries into {@code object}'s metadata (removing the list when there are none). */
    void writeTo(ObjectNode object) {
        ObjectNode meta = ObjectSemantics.metadata(object);
        if (entries.isEmpty()) {
            meta.remove("managedFields");
            return;
        }
        meta.set("managedFields", toJson());
    }

    ArrayNode toJson() {
        ArrayNode list = JsonNodeFactory.instance.arrayNode();
        entries.values().stream().sorted(ORDER).forEach(e -> {
            ObjectNode o = list.addObject();
            if (!e.manager().isEmpty()) {
                // omitted when empty, as kube-apiserver omits it (a request without fieldManager or User-Agent)
                o.put("manager", e.manager());
            }
            o.put("operation", e.operation());
            o.put("apiVersion", e.apiVersion());
            if (e.time() != null) {
                o.put("time", e.time());
            }
            o.put("fieldsType", "FieldsV1");
            o.set("fieldsV1", e.fields().toFieldsV1());
            if (e.subresource() != null && !e.subresource().isEmpty()) {
                o.put("subresource", e.subresource());
            }
        });
        return list;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ManagedFields other && Objects.equals(toJson(), other.toJson());
    }

    @Override
    public int hashCode() {
        return toJson().hashCode();
    }
}
