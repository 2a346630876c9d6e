package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import java.util.Set;

/**
 * What differs between resources on the real server beyond their schema: which group is built in,
 * which resources keep {@code metadata.generation}, which answer a DELETE with the object, which
 * refuse a DELETE of their collection. Looked up by group and plural; stateless.
 */
final class ResourceTraits {

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

    private ResourceTraits() {
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
}
