package io.reactiveinformer.test.server;

import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The write verbs on trees, one request each: POST, PUT, PATCH (with server-side apply's record of
 * what each field manager applied), DELETE and DELETE of a collection. Each reads the request
 * (namespace, name, the kind), asks {@link ObjectSemantics} or {@link DeletionRules} what the write
 * makes of the object, and commits that to the {@link ObjectStore} (or, for a dry run, does not).
 *
 * <p>Threading: every method is called with the state's lock held, so a request's reads and its
 * commit are one step; {@link ClusterState} feeds the watchers after releasing it.
 */
final class Writer {

    private final ObjectStore store;
    private final ObjectSemantics semantics;
    private final DeletionRules deletions;
    private final JsonMapper mapper;
    private final boolean requireNamespaces;

    Writer(ObjectStore store, ObjectSemantics semantics, DeletionRules deletions, JsonMapper mapper,
           boolean requireNamespaces) {
        this.store = store;
        this.semantics = semantics;
        this.deletions = deletions;
        this.mapper = mapper;
        this.requireNamespaces = requireNamespaces;
    }

    /** POST: creates {@code body} in {@code namespace} (or the body's own). */
    ObjectNode create(ResourceType<?> type, String namespace, ObjectNode body, boolean dryRun) {
        return store.commit(createMutation(store.registry().kind(type), namespace, body), dryRun);
    }

    private Mutation createMutation(Kind kind, String namespace, ObjectNode body) {
        Kind namespaces = store.registry().find("", "v1", "namespaces").orElse(null);
        return semantics.create(kind, namespace, body, namespaces, requireNamespaces);
    }

    /** PUT: replaces the object (or only its status); {@code body.metadata.resourceVersion}, if set, must be current. */
    ObjectNode replace(ResourceType<?> type, String namespace, String name, ObjectNode body, boolean statusOnly,
                       boolean dryRun) {
        Kind kind = store.registry().kind(type);
        Validation.checkKind(type, body);
        ObjectNode meta = ObjectSemantics.metadata(body);
        String ns = ObjectSemantics.namespaceFor(type, namespace, meta);
        if (name == null || (meta.has("name") && !name.equals(meta.path("name").asString()))) {
            throw ApiError.badRequest("the name of the object (" + meta.path("name").asString("")
                    + ") does not match the name on the URL (" + name + ")");
        }
        Validation.checkConditionalUpdate(type, name, meta);
        return store.commit(semantics.replace(kind, Kind.key(ns, name), name, body, statusOnly), dryRun);
    }

    /**
     * PATCH; APPLY creates a missing object. An apply by {@code fieldManager} also removes the fields
     * that manager applied last time, no longer applies, and nobody changed since.
     */
    ObjectNode patch(ResourceType<?> type, String namespace, String name, PatchType patchType, JsonNode patch,
                     boolean statusOnly, boolean dryRun, String fieldManager) {
        Kind kind = store.registry().kind(type);
        String ns = type.namespaced() ? ObjectSemantics.requireNamespace(type, namespace) : null;
        String key = Kind.key(ns, name);
        ObjectNode result;
        if (!kind.objects.containsKey(key) && patchType == PatchType.APPLY && !statusOnly) {
            if (!patch.isObject()) {
                throw ApiError.badRequest("an apply patch must be an object");
            }
            ObjectNode body = (ObjectNode) patch.deepCopy();
            ObjectSemantics.metadata(body).put("name", name);
            result = store.commit(createMutation(kind, ns, body), dryRun);
        } else if (patchType == PatchType.APPLY && !statusOnly && fieldManager != null) {
            JsonNode previous = kind.applied.getOrDefault(key, Map.of()).get(fieldManager);
            result = store.commit(semantics.apply(kind, key, name, LastAppliedAnnotation.syncedWith(kind.objects.get(key),
                    patch, fieldManager, mapper), previous), dryRun);
        } else {
            result = store.commit(semantics.patch(kind, key, name, patchType, patch, statusOnly), dryRun);
        }
        if (patchType == PatchType.APPLY && !statusOnly && fieldManager != null && !dryRun) {
            kind.applied.computeIfAbsent(key, k -> new HashMap<>()).put(fieldManager, patch.deepCopy());
        }
        return result;
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
