package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1StatusDetails;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rules of creates and updates, as the real server's registries apply them: what a create,
 * replace or patch makes of the stored object (generated names, uid, generation
 * where the resource keeps one, the status subresource, the end of a deletion whose last finalizer
 * goes). {@link Validation}, {@link Defaults} and {@link Patches} do their parts; {@link DeletionRules}
 * decides DELETEs. It decides; {@link ObjectStore} commits. Called with the state's lock held.
 */
final class ObjectSemantics {

    private static final String NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";

    private final SplittableRandom random;
    private final ServerClock clock;

    ObjectSemantics(SplittableRandom random, ServerClock clock) {
        this.random = random;
        this.clock = clock;
    }

    /**
     * POST. {@code namespaces} are the stored Namespaces: creating in a terminating one is forbidden,
     * and, when {@code requireNamespace}, in a missing one is NotFound, as NamespaceLifecycle admission does.
     */
    Mutation create(Kind kind, String namespace, ObjectNode body, Kind namespaces, boolean requireNamespace) {
        ResourceType<?> type = kind.type;
        Validation.checkKind(type, body);
        ObjectNode obj = Pruning.pruned(kind, body.deepCopy());
        ObjectNode meta = metadata(obj);
        String ns = namespaceFor(type, namespace, meta);
        String name = meta.path("name").asString("");
        if (name.isEmpty()) {
            String prefix = meta.path("generateName").asString("");
            if (prefix.isEmpty()) {
                throw ApiError.invalid(type, "", List.of(ApiError.cause("FieldValueRequired", "metadata.name",
                        "Required value: name or generateName is required")));
            }
            name = prefix + randomSuffix();
        }
        Validation.checkName(type, name);
        if (ns != null && namespaces != null) {
            ObjectNode owner = namespaces.objects.get(ns);
            if (owner == null && requireNamespace) {
                throw ApiError.notFound(namespaces.type, ns);
            }
            if (owner != null && owner.path("metadata").has("deletionTimestamp")) {
                throw new ApiError(403, "Forbidden", type.plural() + " \"" + name + "\" is forbidden: unable to create "
                        + "new content in namespace " + ns + " because it is being terminated",
                        new V1StatusDetails().name(name).kind(type.plural()), null);
            }
        }
        if (!meta.path("resourceVersion").asString("").isEmpty()) {
            throw new ApiError(500, "InternalError", "resourceVersion should not be set on objects to be created",
                    null, null);
        }
        String key = Kind.key(ns, name);
        if (kind.objects.containsKey(key)) {
            throw ApiError.alreadyExists(type, name);
        }
        obj.put("apiVersion", type.apiVersion());
        obj.put("kind", type.kind());
        meta.put("name", name);
        if (ns != null) {
            meta.put("namespace", ns);
        }
        meta.put("uid", new UUID(random.nextLong(), random.nextLong()).toString());
        meta.put("creationTimestamp", clock.timestamp());
        if (ResourceTraits.keepsGeneration(type)) {
            meta.put("generation", 1);
        } else {
            meta.remove("generation");
        }
        meta.remove(List.of("deletionTimestamp", "deletionGracePeriodSeconds"));
        omitEmptyMaps(meta);
        Defaults.apply(type, obj);
        StructuralValidation.check(kind, obj);
        return new Mutation(kind, EventType.ADDED, key, obj, null);
    }

    /** PUT: {@code body.metadata.resourceVersion}, if set, must be current. */
    Mutation replace(Kind kind, String key, String name, ObjectNode request, boolean statusOnly) {
        ResourceType<?> type = kind.type;
        ObjectNode old = kind.existing(key, name);
        ObjectNode body = Pruning.pruned(kind, request);
        String expected = body.path("metadata").path("resourceVersion").asString("");
        if (!expected.isEmpty() && !expected.equals(old.path("metadata").path("resourceVersion").asString())) {
            throw ApiError.conflict(type, name);
        }
        ObjectNode next;
        if (statusOnly) {
            next = old.deepCopy();
            if (body.has("status")) {
                next.set("status", body.get("status").deepCopy());
            } else {
                next.remove("status");
            }
        } else {
            next = body.deepCopy();
            if (kind.statusSubresource) {
                if (old.has("status")) {
                    next.set("status", old.get("status").deepCopy());
                } else {
                    next.remove("status");
                }
            }
            ObjectNode meta = metadata(next);
            JsonNode oldMeta = old.get("metadata");
            for (String kept : List.of("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                    "deletionGracePeriodSeconds", "generation")) {
                if (oldMeta.has(kept)) {
                    meta.set(kept, oldMeta.get(kept).deepCopy());
                } else {
                    meta.remove(kept);
                }
            }
            if (!meta.has("managedFields") && oldMeta.has("managedFields")) {
                // a body without them keeps the stored ones (as the real server), so a PUT of the same content
                // changes nothing and keeps its resourceVersion; ServerSideApply then records the Update
                meta.set("managedFields", oldMeta.get("managedFields").deepCopy());
            }
            if (oldMeta.has("generation") && !withoutMetaAndStatus(old).equals(withoutMetaAndStatus(next))) {
                meta.put("generation", oldMeta.path("generation").asLong(0) + 1);
            }
        }
        next.put("apiVersion", type.apiVersion());
        next.put("kind", type.kind());
        omitEmptyMaps(metadata(next));
        Defaults.apply(type, next);
        StructuralValidation.check(kind, next);
        Validation.checkImmutable(type, old, next);
        Validation.checkNoNewFinalizers(type, old, next);
        metadata(next).put("resourceVersion", old.path("metadata").path("resourceVersion").asString());
        if (next.equals(old)) {
            return Mutation.none(kind, key, old);
        }
        if (next.path("metadata").has("deletionTimestamp") && !hasFinalizers(next)) {
            return new Mutation(kind, EventType.DELETED, key, next, old);
        }
        return new Mutation(kind, EventType.MODIFIED, key, next, old);
    }

    /** PATCH of an existing object by a JSON, merge or strategic merge patch ({@link ServerSideApply} applies). */
    Mutation patch(Kind kind, String key, String name, PatchType patchType, JsonNode patch, boolean statusOnly) {
        ObjectNode old = kind.existing(key, name);
        JsonNode patched = switch (patchType) {
            case JSON_PATCH -> Patches.jsonPatch(old, patch);
            case STRATEGIC_MERGE -> StrategicMergePatch.apply(kind, old, patch);
            case MERGE -> Patches.merge(old, patch);
            case APPLY -> throw new IllegalArgumentException("server-side apply is ServerSideApply's");
        };
        if (!patched.isObject()) {
            throw ApiError.badRequest("the patch did not produce an object");
        }
        return replace(kind, key, name, (ObjectNode) patched, statusOnly);
    }

    /**
     * The real server decodes metadata into Go maps written with {@code omitempty}: labels or
     * annotations sent empty, or emptied by a patch, are not there when the object is read or watched,
     * and storing them so also makes such a write a no-op when nothing else changes.
     */
    private static void omitEmptyMaps(ObjectNode meta) {
        for (String map : List.of("labels", "annotations")) {
            JsonNode value = meta.path(map);
            if (value.isNull() || value.isObject() && value.isEmpty()) {
                meta.remove(map);
            }
        }
    }

    private static ObjectNode withoutMetaAndStatus(ObjectNode obj) {
        ObjectNode copy = obj.deepCopy();
        copy.remove(List.of("metadata", "status", "apiVersion", "kind"));
        return copy;
    }

    static String namespaceFor(ResourceType<?> type, String namespace, ObjectNode meta) {
        if (!type.namespaced()) {
            meta.remove("namespace");
            return null;
        }
        String own = meta.path("namespace").asString("");
        if (namespace != null && !namespace.isEmpty()) {
            if (!own.isEmpty() && !own.equals(namespace)) {
                throw ApiError.badRequest("the namespace of the provided object does not match the namespace sent on"
                        + " the request");
            }
            return namespace;
        }
        return requireNamespace(type, own);
    }

    static String requireNamespace(ResourceType<?> type, String namespace) {
        if (namespace == null || namespace.isEmpty()) {
            throw ApiError.badRequest("a namespace is required for " + type.plural());
        }
        return namespace;
    }

    static ObjectNode metadata(ObjectNode obj) {
        JsonNode meta = obj.get("metadata");
        if (meta instanceof ObjectNode m) {
            return m;
        }
        return obj.putObject("metadata");
    }

    static boolean hasFinalizers(ObjectNode obj) {
        JsonNode finalizers = obj.path("metadata").path("finalizers");
        return finalizers.isArray() && !finalizers.isEmpty();
    }

    private String randomSuffix() {
        StringBuilder b = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            b.append(NAME_CHARS.charAt(random.nextInt(NAME_CHARS.length())));
        }
        return b.toString();
    }
}