package io.reactiveinformer.test.server;

import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The write verbs on trees, one request each: POST, PUT, PATCH (server-side apply among them), DELETE
 * and DELETE of a collection. Each reads the request (namespace, name, the kind), asks
 * {@link ObjectSemantics} or {@link DeletionRules} what the write makes of the object and
 * {@link ServerSideApply} who owns its fields then, and commits that to the {@link ObjectStore} (or,
 * for a dry run, does not). {@code fieldManager} is the writer's field manager ({@code null} for a
 * write without a request: that of a request without User-Agent, the empty name).
 *
 * <p>Threading: every method is called with the state's lock held, so a request's reads and its
 * commit are one step; {@link ClusterState} feeds the watchers after releasing it.
 */
final class Writer {

    private final ObjectStore store;
    private final ObjectSemantics semantics;
    private final DeletionRules deletions;
    private final ServerSideApply ownership;
    private final JsonMapper mapper;
    private final boolean requireNamespaces;

    Writer(ObjectStore store, ObjectSemantics semantics, DeletionRules deletions, ServerSideApply ownership,
           JsonMapper mapper, boolean requireNamespaces) {
        this.store = store;
        this.semantics = semantics;
        this.deletions = deletions;
        this.ownership = ownership;
        this.mapper = mapper;
        this.requireNamespaces = requireNamespaces;
    }

    /** POST: creates {@code body} in {@code namespace} (or the body's own). */
    ObjectNode create(ResourceType<?> type, String namespace, ObjectNode body, boolean dryRun, String fieldManager) {
        Mutation created = createMutation(store.registry().kind(type), namespace, body);
        return store.commit(tracked(created, fieldManager, false), dryRun);
    }

    private Mutation createMutation(Kind kind, String namespace, ObjectNode body) {
        Kind namespaces = store.registry().find("", "v1", "namespaces").orElse(null);
        return semantics.create(kind, namespace, body, namespaces, requireNamespaces);
    }

    /** PUT: replaces the object (or only its status); {@code body.metadata.resourceVersion}, if set, must be current. */
    ObjectNode replace(ResourceType<?> type, String namespace, String name, ObjectNode body, boolean statusOnly,
                       boolean dryRun, String fieldManager) {
        Kind kind = store.registry().kind(type);
        Validation.checkKind(type, body);
        ObjectNode meta = ObjectSemantics.metadata(body);
        String ns = ObjectSemantics.namespaceFor(type, namespace, meta);
        if (name == null || (meta.has("name") && !name.equals(meta.path("name").asString()))) {
            throw ApiError.badRequest("the name of the object (" + meta.path("name").asString("")
                    + ") does not match the name on the URL (" + name + ")");
        }
        Validation.checkConditionalUpdate(type, name, meta);
        return store.commit(tracked(semantics.replace(kind, Kind.key(ns, name), name, body, statusOnly), fieldManager,
                statusOnly), dryRun);
    }

    /**
     * PATCH; APPLY (server-side apply by {@code fieldManager}, taking fields other managers own when
     * {@code force}) creates a missing object.
     */
    ObjectNode patch(ResourceType<?> type, String namespace, String name, PatchType patchType, JsonNode patch,
                     boolean statusOnly, boolean dryRun, String fieldManager, boolean force) {
        Kind kind = store.registry().kind(type);
        String ns = type.namespaced() ? ObjectSemantics.requireNamespace(type, namespace) : null;
        String key = Kind.key(ns, name);
        if (patchType != PatchType.APPLY) {
            return store.commit(tracked(semantics.patch(kind, key, name, patchType, patch, statusOnly), fieldManager,
                    statusOnly), dryRun);
        }
        if (fieldManager == null || fieldManager.isEmpty()) {
            throw ApiError.fieldManagerRequired();
        }
        if (!patch.isObject()) {
            throw ApiError.badRequest("an apply patch must be an object");
        }
        ObjectNode live = kind.objects.get(key);
        if (live == null && !statusOnly) {
            ObjectNode body = ownership.apply(kind, null, (ObjectNode) patch, fieldManager, force, false);
            ObjectSemantics.metadata(body).put("name", name);
            return store.commit(createMutation(kind, ns, body), dryRun);
        }
        ObjectNode applied = ownership.apply(kind, kind.existing(key, name), (ObjectNode) patch, fieldManager, force,
                statusOnly);
        LastAppliedAnnotation.sync(applied, patch, fieldManager, mapper);
        return store.commit(withManagedFields(semantics.replace(kind, key, name, applied, statusOnly),
                applied.path("metadata").get("managedFields")), dryRun);
    }

    /** {@code m} with the managedFields its Update by {@code fieldManager} leaves (a deletion keeps them). */
    private Mutation tracked(Mutation m, String fieldManager, boolean statusOnly) {
        if (m.type() == EventType.DELETED) {
            return m;
        }
        return withManagedFields(m, ownership.update(m.kind(), m.previous(), m.object(),
                fieldManager == null ? "" : fieldManager, statusOnly));
    }

    /** {@code m} with {@code managedFields} (or none); a write that changes only them is still a write. */
    private static Mutation withManagedFields(Mutation m, JsonNode managedFields) {
        if (m.type() == EventType.DELETED) {
            return m;
        }
        ObjectNode object = m.changes() ? m.object() : m.object().deepCopy();
        if (managedFields == null) {
            ObjectSemantics.metadata(object).remove("managedFields");
        } else {
            ObjectSemantics.metadata(object).set("managedFields", managedFields);
        }
        if (m.changes()) {
            return m;
        }
        return object.equals(m.previous()) ? m : new Mutation(m.kind(), EventType.MODIFIED, m.key(), object, m.previous());
    }

    /** DELETE with options (preconditions, propagation policy, grace period), or its dry run. */
    Deletion delete(ResourceType<?> type, String namespace, String name, DeleteOptions options, boolean dryRun) {
        return delete(store.registry().kind(type), namespace, name, options, dryRun);
    }

    /** DELETE of a collection: every object matching the selectors, as one DELETE each would. */
    List<Deletion> deleteCollection(ResourceType<?> type, String namespace, ListOptions selectors,
                                    DeleteOptions options, boolean dryRun) {
        List<Deletion> out = new ArrayList<>();
        Kind kind = store.registry().kind(type);
        String ns = type.namespaced() && namespace != null && !namespace.isEmpty() ? namespace : null;
        Selector labels = Selector.labels(selectors.labelSelector());
        Selector fields = Selector.fields(type, selectors.fieldSelector());
        for (String key : keysMatching(kind, ns, labels, fields)) {
            ObjectNode obj = kind.objects.get(key);
            String name = obj.path("metadata").path("name").asString();
            String objNs = obj.path("metadata").path("namespace").asString(null);
            out.add(delete(kind, objNs, name, options, dryRun));
        }
        return out;
    }

    private Deletion delete(Kind kind, String namespace, String name, DeleteOptions options, boolean dryRun) {
        ResourceType<?> type = kind.type;
        String ns = type.namespaced() ? ObjectSemantics.requireNamespace(type, namespace) : null;
        String key = Kind.key(ns, name);
        Deletion deletion = deletions.delete(kind, key, name, options);
        ObjectNode previous = kind.objects.get(key);
        if (deletion.removed()) {
            Mutation m = new Mutation(kind, EventType.DELETED, key, previous.deepCopy(), previous);
            return new Deletion(store.commit(m, dryRun), true, previous);
        }
        if (deletion.object() == previous) {
            return deletion;
        }
        return new Deletion(store.commit(new Mutation(kind, EventType.MODIFIED, key, deletion.object(), previous),
                dryRun), false, previous);
    }

    /** The objects of {@code kind} in {@code namespace} matching the selectors, in key order. */
    private static List<String> keysMatching(Kind kind, String namespace, Selector labels, Selector fields) {
        List<String> keys = new ArrayList<>();
        kind.objects.forEach((key, obj) -> {
            if ((namespace == null || namespace.equals(obj.path("metadata").path("namespace").asString("")))
                    && labels.matches(obj) && fields.matches(obj)) {
                keys.add(key);
            }
        });
        return keys;
    }
}
