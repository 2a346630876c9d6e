package io.reactiveinformer.test.server;

import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rules of a DELETE, as the real server's generic registry applies them: preconditions, graceful
 * deletion of pods, finalizers (including those a propagation policy adds), and namespaces that
 * are first only marked terminating. It decides what a DELETE makes of the stored object;
 * {@link ObjectStore} commits it. Called with the state's lock held.
 */
final class DeletionRules {

    private static final String ORPHAN = "orphan";
    private static final String FOREGROUND = "foregroundDeletion";

    private final ServerClock clock;

    DeletionRules(ServerClock clock) {
        this.clock = clock;
    }

    /**
     * DELETE, as the generic registry does it: preconditions first; an object being gracefully
     * deleted stays as it is; a pod on a node gets its grace period; finalizers (including those a
     * propagation policy adds) keep the object, marked with a deletionTimestamp; anything else goes.
     */
    Deletion delete(Kind kind, String key, String name, DeleteOptions options) {
        ResourceType<?> type = kind.type;
        ObjectNode old = kind.existing(key, name);
        JsonNode oldMeta = old.path("metadata");
        checkPreconditions(type, name, oldMeta, options);
        ObjectNode next = old.deepCopy();
        ObjectNode meta = ObjectSemantics.metadata(next);
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
                Instant now = clock.now();
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
                meta.put("deletionTimestamp", clock.now().plusSeconds(period).toString());
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
            meta.put("deletionTimestamp", clock.timestamp());
            ObjectNode status = next.get("status") instanceof ObjectNode existing ? existing : next.putObject("status");
            status.put("phase", "Terminating");
            return new Deletion(next, false, old);
        }
        JsonNode finalizers = old.path("spec").path("finalizers");
        return new Deletion(old, finalizers.isEmpty() && !ObjectSemantics.hasFinalizers(old), old);
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
        if (!ResourceTraits.isBuiltIn(type) || !type.group().isEmpty() || !type.plural().equals("pods")) {
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
            meta.put("deletionTimestamp", clock.timestamp());
        }
        meta.put("deletionGracePeriodSeconds", 0);
    }
}
