package io.reactiveinformer.test.server;

import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rules of writes, as the real server's registries apply them: what a create, replace, patch or
 * delete makes of the stored object (generated names, uid, generation where the resource keeps one,
 * the status subresource, finalizers, graceful deletion, delete preconditions and propagation
 * finalizers). It decides; {@link ClusterState} commits. Called with the state's lock held.
 */
final class ObjectSemantics {

    private static final String NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
    private static final String ORPHAN = "orphan";
    private static final String FOREGROUND = "foregroundDeletion";

    /** Built-in resources whose registry sets {@code metadata.generation} (custom resources all do). */
    private static final Set<String> BUILT_IN_WITH_GENERATION = Set.of("/pods", "/podtemplates",
            "/replicationcontrollers", "apps/deployments", "apps/replicasets", "apps/statefulsets", "apps/daemonsets",
            "batch/jobs", "batch/cronjobs", "networking.k8s.io/ingresses", "networking.k8s.io/networkpolicies",
            "networking.k8s.io/ingressclasses", "policy/poddisruptionbudgets", "scheduling.k8s.io/priorityclasses",
            "discovery.k8s.io/endpointslices", "apiextensions.k8s.io/customresourcedefinitions");

    /** Built-in resources whose DELETE answers with the object rather than a {@code Status}. */
    private static final Set<String> RETURNS_DELETED_OBJECT = Set.of("/pods", "/namespaces", "/services",
            "/serviceaccounts", "/persistentvolumeclaims", "/persistentvolumes", "/resourcequotas", "/podtemplates",
            "storage.k8s.io/storageclasses", "storage.k8s.io/csidrivers", "storage.k8s.io/csinodes",
            "storage.k8s.io/volumeattachments", "storage.k8s.io/volumeattributesclasses");

    private final SplittableRandom random;
    private final Scheduler clock;

    ObjectSemantics(SplittableRandom random, Scheduler clock) {
        this.random = random;
        this.clock = clock;
    }

    /** Whether the real server keeps {@code metadata.generation} for {@code type}. */
    static boolean keepsGeneration(ResourceType<?> type) {
        return !isBuiltIn(type) || BUILT_IN_WITH_GENERATION.contains(type.group() + "/" + type.plural());
    }

    /** Whether a completed DELETE of {@code type} answers with the object (else a {@code Status}). */
    static boolean returnsDeletedObject(ResourceType<?> type) {
        return isBuiltIn(type) && RETURNS_DELETED_OBJECT.contains(type.group() + "/" + type.plural());
    }

    /** Namespaces alone refuse a DELETE of their collection. */
    static boolean allowsDeleteCollection(ResourceType<?> type) {
        return !(type.group().isEmpty() && type.plural().equals("namespaces"));
    }

    /** Groups served by kube-apiserver itself; anything else is a custom resource here. */
    static boolean isBuiltIn(ResourceType<?> type) {
        String g = type.group();
        return g.isEmpty() || g.endsWith(".k8s.io") || Set.of("apps", "batch", "policy", "autoscaling").contains(g);
    }

    /**
     * POST. {@code namespaces} are the stored Namespaces: creating in a terminating one is forbidden,
     * and, when {@code requireNamespace}, in a missing one is NotFound, as NamespaceLifecycle admission does.
     */
    Mutation create(Kind kind, String namespace, ObjectNode body, Kind namespaces, boolean requireNamespace) {
        ResourceType<?> type = kind.type;
        Validation.checkKind(type, body);
        ObjectNode obj = body.deepCopy();
        ObjectNode meta = metadata(obj);
        String ns = namespaceFor(type, namespace, meta);
        String name = meta.path("name").asString("");
        if (name.isEmpty()) {
            String prefix = meta.path("generateName").asString("");
            if (prefix.isEmpty()) {
                throw ApiError.invalid(type, "", "metadata.name: Required value: name or generateName is required");
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
                        new io.kubernetes.client.openapi.models.V1StatusDetails().name(name).kind(type.plural()), null);
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
        meta.put("creationTimestamp", now());
        if (keepsGeneration(type)) {
            meta.put("generation", 1);
        } else {
            meta.remove("generation");
        }
        meta.remove(List.of("deletionTimestamp", "deletionGracePeriodSeconds"));
        Defaults.apply(type, obj);
        return new Mutation(kind, EventType.ADDED, key, obj, null);
    }

    /** PUT: {@code body.metadata.resourceVersion}, if set, must be current. */
    Mutation replace(Kind kind, String key, String name, ObjectNode body, boolean statusOnly) {
        ResourceType<?> type = kind.type;
        ObjectNode old = existing(kind, key, name);
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
            if (oldMeta.has("generation") && !withoutMetaAndStatus(old).equals(withoutMetaAndStatus(next))) {
                meta.put("generation", oldMeta.path("generation").asLong(0) + 1);
            }
        }
        next.put("apiVersion", type.apiVersion());
        next.put("kind", type.kind());
        Defaults.apply(type, next);
        Validation.checkImmutable(type, old, next);
        metadata(next).put("resourceVersion", old.path("metadata").path("resourceVersion").asString());
        if (next.equals(old)) {
            return Mutation.none(kind, key, old);
        }
        if (next.path("metadata").has("deletionTimestamp") && !hasFinalizers(next)) {
            return new Mutation(kind, EventType.DELETED, key, next, old);
        }
        return new Mutation(kind, EventType.MODIFIED, key, next, old);
    }

    /** PATCH of an existing object (an apply of a missing one is a create, decided by the caller). */
    Mutation patch(Kind kind, String key, String name, PatchType patchType, JsonNode patch, boolean statusOnly) {
        ObjectNode old = existing(kind, key, name);
        JsonNode patched = switch (patchType) {
            case JSON_PATCH -> Patches.jsonPatch(old, patch);
            case STRATEGIC_MERGE -> Patches.strategicMerge(old, patch);
            case MERGE, APPLY -> Patches.merge(old, patch);
        };
        if (!patched.isObject()) {
            throw ApiError.badRequest("the patch did not produce an object");
        }
        return replace(kind, key, name, (ObjectNode) patched, statusOnly);
    }

    /**
     * DELETE, as the generic registry does it: preconditions first; an object being gracefully
     * deleted stays as it is; a pod on a node gets its grace period; finalizers (including those a
     * propagation policy adds) keep the object, marked with a deletionTimestamp; anything else goes.
     */
    Deletion delete(Kind kind, String key, String name, DeleteOptions options) {
        ResourceType<?> type = kind.type;
        ObjectNode old = existing(kind, key, name);
        JsonNode oldMeta = old.path("metadata");
        checkPreconditions(type, name, oldMeta, options);
        ObjectNode next = old.deepCopy();
        ObjectNode meta = metadata(next);
        if (type.group().isEmpty() && type.plural().equals("namespaces")) {
            return deleteNamespace(old, next, meta);
        }
        boolean graceful = false;
        if (oldMeta.has("deletionTimestamp")) {
            long period = oldMeta.path("deletionGracePeriodSeconds").asLong(0);
            if (period > 0) {
                Long requested = options.gracePeriodSeconds();
                if (requested == null || requested >= period) {
                    return new Deletion(old, false, old);
                }
                Instant at = Instant.parse(oldMeta.path("deletionTimestamp").asString()).minusSeconds(period)
                        .plusSeconds(requested);
                Instant now = Instant.ofEpochMilli(clock.now(TimeUnit.MILLISECONDS)).truncatedTo(ChronoUnit.SECONDS);
                long shortened = requested;
                if (at.isBefore(now)) {
                    at = now;
                    shortened = requested == 0 ? 0 : 1;
                }
                meta.put("deletionTimestamp", at.toString());
                meta.put("deletionGracePeriodSeconds", shortened);
                graceful = shortened > 0;
            }
        } else {
            long period = gracePeriod(type, old, options);
            if (period > 0) {
                meta.put("deletionTimestamp", Instant.ofEpochMilli(clock.now(TimeUnit.MILLISECONDS))
                        .truncatedTo(ChronoUnit.SECONDS).plusSeconds(period).toString());
                meta.put("deletionGracePeriodSeconds", period);
                if (meta.has("generation")) {
                    meta.put("generation", meta.path("generation").asLong() + 1);
                }
                graceful = true;
            }
        }
        List<String> finalizers = finalizersAfter(oldMeta, options);
        boolean finalizersChanged = !finalizers.equals(finalizers(oldMeta));
        if (finalizersChanged) {
            ArrayNode array = meta.putArray("finalizers");
            finalizers.forEach(array::add);
            if (finalizers.isEmpty()) {
                meta.remove("finalizers");
            }
        }
        if (graceful || !finalizers.isEmpty()) {
            if (!graceful) {
                markAsDeleting(meta);
            }
            if (next.equals(old)) {
                return new Deletion(old, false, old);
            }
            return new Deletion(next, false, old);
        }
        return new Deletion(old, true, old);
    }

    /**
     * A namespace is first only marked (deletionTimestamp, phase Terminating); it goes on a later
     * delete once its {@code spec.finalizers} are empty, which the namespace controller of
     * kube-controller-manager does after deleting its contents. Like an API server without that
     * controller, the simulated one leaves it terminating.
     */
    private Deletion deleteNamespace(ObjectNode old, ObjectNode next, ObjectNode meta) {
        if (!old.path("metadata").has("deletionTimestamp")) {
            meta.put("deletionTimestamp", now());
            ObjectNode status = next.get("status") instanceof ObjectNode existing ? existing : next.putObject("status");
            status.put("phase", "Terminating");
            return new Deletion(next, false, old);
        }
        JsonNode finalizers = old.path("spec").path("finalizers");
        return new Deletion(old, finalizers.isEmpty() && !hasFinalizers(old), old);
    }

    /** The objects of {@code kind} in {@code namespace} matching the selectors, in key order. */
    static List<String> keysMatching(Kind kind, String namespace, Selector labels, Selector fields) {
        List<String> keys = new ArrayList<>();
        kind.objects.forEach((key, obj) -> {
            if ((namespace == null || namespace.equals(obj.path("metadata").path("namespace").asString("")))
                    && labels.matches(obj) && fields.matches(obj)) {
                keys.add(key);
            }
        });
        return keys;
    }

    private static void checkPreconditions(ResourceType<?> type, String name, JsonNode meta, DeleteOptions options) {
        String qualified = type.group().isEmpty() ? type.kind() : type.kind() + "." + type.group();
        if (options.uid() != null && !options.uid().equals(meta.path("uid").asString())) {
            throw ApiError.preconditionFailed(type, qualified, name, "the UID in the precondition (" + options.uid()
                    + ") does not match the UID in record (" + meta.path("uid").asString()
                    + "). The object might have been deleted and then recreated");
        }
        if (options.resourceVersion() != null
                && !options.resourceVersion().equals(meta.path("resourceVersion").asString())) {
            throw ApiError.preconditionFailed(type, qualified, name, "the ResourceVersion in the precondition ("
                    + options.resourceVersion() + ") does not match the ResourceVersion in record ("
                    + meta.path("resourceVersion").asString() + "). The object might have been modified");
        }
    }

    /** Pods alone delete gracefully: once scheduled and not yet terminal. */
    private static long gracePeriod(ResourceType<?> type, ObjectNode pod, DeleteOptions options) {
        if (!isBuiltIn(type) || !type.group().isEmpty() || !type.plural().equals("pods")) {
            return 0;
        }
        String phase = pod.path("status").path("phase").asString("");
        if (pod.path("spec").path("nodeName").asString("").isEmpty() || phase.equals("Succeeded")
                || phase.equals("Failed")) {
            return 0;
        }
        long period = options.gracePeriodSeconds() != null ? options.gracePeriodSeconds()
                : pod.path("spec").path("terminationGracePeriodSeconds").asLong(30);
        return period < 0 ? 1 : period;
    }

    private static List<String> finalizersAfter(JsonNode meta, DeleteOptions options) {
        List<String> out = new ArrayList<>();
        boolean orphan = false;
        boolean foreground = false;
        for (String f : finalizers(meta)) {
            if (f.equals(ORPHAN)) {
                orphan = true;
            } else if (f.equals(FOREGROUND)) {
                foreground = true;
            } else {
                out.add(f);
            }
        }
        if (options.propagationPolicy() != null) {
            orphan = options.propagationPolicy() == DeleteOptions.Propagation.ORPHAN;
            foreground = options.propagationPolicy() == DeleteOptions.Propagation.FOREGROUND;
        }
        if (orphan) {
            out.add(ORPHAN);
        }
        if (foreground) {
            out.add(FOREGROUND);
        }
        return out;
    }

    private static List<String> finalizers(JsonNode meta) {
        List<String> out = new ArrayList<>();
        meta.path("finalizers").forEach(f -> out.add(f.asString()));
        return out;
    }

    private void markAsDeleting(ObjectNode meta) {
        if (!meta.has("deletionTimestamp") && meta.has("generation")) {
            meta.put("generation", meta.path("generation").asLong() + 1);
        }
        if (!meta.has("deletionTimestamp")) {
            meta.put("deletionTimestamp", now());
        }
        meta.put("deletionGracePeriodSeconds", 0);
    }

    private static ObjectNode existing(Kind kind, String key, String name) {
        ObjectNode old = kind.objects.get(key);
        if (old == null) {
            throw ApiError.notFound(kind.type, name);
        }
        return old;
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

    String now() {
        return Instant.ofEpochMilli(clock.now(TimeUnit.MILLISECONDS)).truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private String randomSuffix() {
        StringBuilder b = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            b.append(NAME_CHARS.charAt(random.nextInt(NAME_CHARS.length())));
        }
        return b.toString();
    }
}
