package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1StatusCause;
import io.kubernetes.client.openapi.models.V1StatusDetails;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Server-side apply and field ownership, as kube-apiserver's field manager keeps them with
 * structured-merge-diff. An apply merges the applied configuration into the object by its
 * {@link Schema}, makes the applier own exactly the fields of its configuration, removes the fields it
 * owned before and no longer applies unless another manager owns them too, and answers 409 when it
 * would change a field another manager owns (unless forced: then the other manager loses it). Every
 * other write is an Update: its manager comes to own what it changed, and the others lose it. Either
 * way the result is written into the object's {@code metadata.managedFields} ({@link ManagedFields}).
 *
 * <p>A write on the main resource of a kind with a status subresource owns nothing under
 * {@code status}; a write on {@code status} owns nothing else. Called with the state's lock held.
 */
final class ServerSideApply {

    /** The Update manager an object's fields are attributed to when it is first applied without managedFields. */
    static final String BEFORE_FIRST_APPLY = "before-first-apply";

    /** Fields nobody owns (kube-apiserver's field manager strips them from every manager's set). */
    private static final FieldSet SERVER_FIELDS = FieldSet.of(List.of(List.of("f:apiVersion"), List.of("f:kind"),
            List.of("f:metadata"), List.of("f:metadata", "f:name"), List.of("f:metadata", "f:namespace"),
            List.of("f:metadata", "f:creationTimestamp"), List.of("f:metadata", "f:selfLink"),
            List.of("f:metadata", "f:uid"), List.of("f:metadata", "f:clusterName"),
            List.of("f:metadata", "f:generation"), List.of("f:metadata", "f:managedFields"),
            List.of("f:metadata", "f:resourceVersion")));

    private final ServerClock clock;

    ServerSideApply(ServerClock clock) {
        this.clock = clock;
    }

    /**
     * The object an apply of {@code config} by {@code manager} makes of {@code live} ({@code null}: the
     * object is missing and the apply creates it), with its managedFields.
     *
     * @throws ApiError 409 Conflict naming each field another manager owns and the apply would change
     */
    ObjectNode apply(Kind kind, ObjectNode live, ObjectNode config, String manager, boolean force,
                     boolean statusOnly) {
        if (config.path("metadata").has("managedFields")) {
            throw ApiError.badRequest("metadata.managedFields must be nil");
        }
        Schema schema = kind.schema();
        String subresource = statusOnly ? "status" : "";
        ManagedFields managed = ManagedFields.of(live);
        ObjectNode liveTree = live == null ? JsonNodeFactory.instance.objectNode() : withoutManagedFields(live);
        if (live != null && managed.isEmpty()) {
            FieldSet all = TypedValue.compare(null, owned(kind, live, statusOnly), schema).changed();
            managed.put(new ManagedFields.Entry(BEFORE_FIRST_APPLY, ManagedFields.UPDATE, kind.type.apiVersion(),
                    clock.timestamp(), subresource, all.removeAll(SERVER_FIELDS)));
        }
        ObjectNode merged = (ObjectNode) TypedValue.merge(liveTree, config, schema);
        ManagedFields.Id self = ManagedFields.Id.apply(manager, subresource);
        ManagedFields.Entry last = managed.get(self);
        FieldSet applied = TypedValue.fields(owned(kind, config, statusOnly), schema).removeAll(SERVER_FIELDS);
        ManagedFields.Entry mine = new ManagedFields.Entry(manager, ManagedFields.APPLY, kind.type.apiVersion(),
                last == null ? null : last.time(), subresource, applied);
        managed.put(mine);
        if (last != null) {
            FieldSet stillOwned = TypedValue.withNamedFields(managed.union(), schema);
            TypedValue.removeItems(merged, TypedValue.withNamedFields(last.fields(), schema).removeAll(stillOwned),
                    schema);
        }
        TypedValue.Comparison change = TypedValue.compare(owned(kind, liveTree, statusOnly),
                owned(kind, merged, statusOnly), schema);
        FieldSet changed = change.changed();
        Map<String, List<String>> conflicts = new TreeMap<>();
        for (ManagedFields.Entry other : managed.others(self)) {
            FieldSet lost = other.fields().intersection(changed);
            if (!lost.isEmpty()) {
                conflicts.put(other.describe(), lost.paths().stream().map(FieldSet::pathString).toList());
            }
        }
        if (!conflicts.isEmpty() && !force) {
            throw conflict(conflicts);
        }
        for (ManagedFields.Entry other : managed.others(self)) {
            managed.put(other.withFields(other.fields().copy().removeAll(changed).removeAll(change.removed())));
        }
        if (!merged.equals(liveTree)) {
            managed.put(mine.withTime(clock.timestamp()));
        }
        managed.writeTo(merged);
        return merged;
    }

    /**
     * The managedFields (or {@code null}: none) of {@code next}, what a create, update, patch or status
     * write by {@code manager} makes of {@code live} ({@code null} for a create): the manager's Update entry
     * comes to own what the write changed, and every other manager loses it. As kube-apiserver does,
     * managedFields sent with the write replace the stored ones (an empty list, or one empty entry,
     * strips them all), and an existing object without managedFields stays without until it is
     * first applied.
     */
    JsonNode update(Kind kind, ObjectNode live, ObjectNode next, String manager, boolean statusOnly) {
        JsonNode sent = next.path("metadata").get("managedFields");
        if (!statusOnly && ManagedFields.isReset(sent)) {
            return null;
        }
        ManagedFields managed = !statusOnly && sent != null && sent.isArray() && !sent.isEmpty()
                ? ManagedFields.ofEntries(sent) : ManagedFields.of(live);
        if (managed.isEmpty() && live != null) {
            return null;
        }
        Schema schema = kind.schema();
        String subresource = statusOnly ? "status" : "";
        TypedValue.Comparison change = TypedValue.compare(live == null ? null : owned(kind, live, statusOnly),
                owned(kind, next, statusOnly), schema);
        FieldSet changed = change.changed();
        ManagedFields.Id self = ManagedFields.Id.update(manager, kind.type.apiVersion(), subresource);
        for (ManagedFields.Entry other : managed.others(null)) {
            managed.put(other.withFields(other.fields().copy().removeAll(changed).removeAll(change.removed())));
        }
        FieldSet own = changed.removeAll(SERVER_FIELDS);
        if (!own.isEmpty()) {
            ManagedFields.Entry previous = managed.get(self);
            FieldSet fields = previous == null ? own : previous.fields().copy().union(own);
            managed.put(new ManagedFields.Entry(manager, ManagedFields.UPDATE, kind.type.apiVersion(),
                    clock.timestamp(), subresource, fields));
        }
        return managed.isEmpty() ? null : managed.toJson();
    }

    /**
     * The part of an object a write on the main resource (or on status) owns fields in, without its
     * managedFields: a view sharing the object's nodes, to be read only.
     */
    private static ObjectNode owned(Kind kind, ObjectNode object, boolean statusOnly) {
        ObjectNode view = JsonNodeFactory.instance.objectNode();
        if (statusOnly) {
            if (object.has("status")) {
                view.set("status", object.get("status"));
            }
            return view;
        }
        for (Map.Entry<String, JsonNode> e : object.properties()) {
            if (e.getKey().equals("metadata") && e.getValue() instanceof ObjectNode meta && meta.has("managedFields")) {
                ObjectNode metaView = view.putObject("metadata");
                meta.properties().stream().filter(m -> !m.getKey().equals("managedFields"))
                        .forEach(m -> metaView.set(m.getKey(), m.getValue()));
            } else if (!(e.getKey().equals("status") && kind.statusSubresource)) {
                view.set(e.getKey(), e.getValue());
            }
        }
        return view;
    }

    private static ObjectNode withoutManagedFields(ObjectNode object) {
        ObjectNode copy = object.deepCopy();
        if (copy.path("metadata") instanceof ObjectNode meta) {
            meta.remove("managedFields");
        }
        return copy;
    }

    /** 409 Conflict as kube-apiserver words it: one cause per field, the message grouping fields by manager. */
    private static ApiError conflict(Map<String, List<String>> byManager) {
        List<V1StatusCause> causes = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        byManager.forEach((who, fields) -> {
            lines.add("conflicts with " + who + ":");
            for (String field : fields) {
                causes.add(new V1StatusCause().reason("FieldManagerConflict").message("conflict with " + who)
                        .field(field));
                lines.add("- " + field);
            }
        });
        String message = causes.size() == 1
                ? "Apply failed with 1 conflict: " + causes.get(0).getMessage() + ": " + causes.get(0).getField()
                : "Apply failed with " + causes.size() + " conflicts: " + String.join("\n", lines);
        return new ApiError(409, "Conflict", message, new V1StatusDetails().causes(causes), null);
    }
}
