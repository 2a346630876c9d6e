package io.reactiveinformer.api;

import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.PartialObjectMetadata;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a kind lives in the API: group, version, plural resource name, scope, and the Java type its
 * objects decode to.
 *
 * @param group      API group, {@code ""} for the core group
 * @param version    e.g. {@code v1}
 * @param plural     the resource name in URLs, e.g. {@code deployments}
 * @param kind       e.g. {@code Deployment}
 * @param namespaced whether objects live in namespaces
 * @param type       the Java class objects decode to
 * @param <T>        the object type
 */
public record ResourceType<T>(String group, String version, String plural, String kind, boolean namespaced,
                              Class<T> type) {

    private static final Pattern MODEL_NAME = Pattern.compile("^(?:Core|Events)?(V\\d+(?:(?:alpha|beta)\\d+)?)([A-Z]\\w*)$");

    /** kind -> group and scope of the built-in kinds; plural exceptions after a second bar. */
    private static final Map<String, String> BUILT_IN = Map.ofEntries(
            Map.entry("Pod", "|ns"), Map.entry("Service", "|ns"), Map.entry("ConfigMap", "|ns"),
            Map.entry("Secret", "|ns"), Map.entry("Namespace", "|cluster"), Map.entry("Node", "|cluster"),
            Map.entry("ServiceAccount", "|ns"), Map.entry("PersistentVolume", "|cluster"),
            Map.entry("PersistentVolumeClaim", "|ns"), Map.entry("Endpoints", "|ns|endpoints"),
            Map.entry("ReplicationController", "|ns"), Map.entry("LimitRange", "|ns"),
            Map.entry("ResourceQuota", "|ns"), Map.entry("PodTemplate", "|ns"),
            Map.entry("Deployment", "apps|ns"), Map.entry("ReplicaSet", "apps|ns"),
            Map.entry("StatefulSet", "apps|ns"), Map.entry("DaemonSet", "apps|ns"),
            Map.entry("ControllerRevision", "apps|ns"), Map.entry("Job", "batch|ns"), Map.entry("CronJob", "batch|ns"),
            Map.entry("Lease", "coordination.k8s.io|ns"), Map.entry("Ingress", "networking.k8s.io|ns"),
            Map.entry("IngressClass", "networking.k8s.io|cluster"), Map.entry("NetworkPolicy", "networking.k8s.io|ns"),
            Map.entry("Role", "rbac.authorization.k8s.io|ns"), Map.entry("RoleBinding", "rbac.authorization.k8s.io|ns"),
            Map.entry("ClusterRole", "rbac.authorization.k8s.io|cluster"),
            Map.entry("ClusterRoleBinding", "rbac.authorization.k8s.io|cluster"),
            Map.entry("CustomResourceDefinition", "apiextensions.k8s.io|cluster"),
            Map.entry("StorageClass", "storage.k8s.io|cluster"), Map.entry("CSIDriver", "storage.k8s.io|cluster"),
            Map.entry("CSINode", "storage.k8s.io|cluster"), Map.entry("VolumeAttachment", "storage.k8s.io|cluster"),
            Map.entry("PodDisruptionBudget", "policy|ns"), Map.entry("HorizontalPodAutoscaler", "autoscaling|ns"),
            Map.entry("EndpointSlice", "discovery.k8s.io|ns"), Map.entry("PriorityClass", "scheduling.k8s.io|cluster"),
            Map.entry("MutatingWebhookConfiguration", "admissionregistration.k8s.io|cluster"),
            Map.entry("ValidatingWebhookConfiguration", "admissionregistration.k8s.io|cluster"),
            Map.entry("CertificateSigningRequest", "certificates.k8s.io|cluster"));

    public ResourceType {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(plural, "plural");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(type, "type");
    }

    /**
     * The resource of an official model class: {@code V1Pod}, {@code V1Deployment},
     * {@code V2HorizontalPodAutoscaler}, {@code CoreV1Event}, {@code EventsV1Event}, ...
     *
     * @throws IllegalArgumentException for a class that is not a known built-in kind (give the
     *                                  resource explicitly with {@link #namespaced} or {@link #clusterScoped})
     */
    public static <T> ResourceType<T> of(Class<T> model) {
        Matcher m = MODEL_NAME.matcher(model.getSimpleName());
        String entry = m.matches() ? BUILT_IN.get(m.group(2)) : null;
        if (entry == null || !model.getName().startsWith("io.kubernetes.client.openapi.models.")) {
            throw new IllegalArgumentException(model.getName() + " is not a built-in Kubernetes kind; "
                    + "describe it with ResourceType.namespaced(...) or ResourceType.clusterScoped(...)");
        }
        String kind = m.group(2);
        String version = m.group(1).toLowerCase(java.util.Locale.ROOT);
        String[] parts = entry.split("\\|", -1);
        String group = model.getSimpleName().startsWith("Events") ? "events.k8s.io" : parts[0];
        String plural = parts.length > 2 ? parts[2] : plural(kind);
        return new ResourceType<>(group, version, plural, kind, "ns".equals(parts[1]), model);
    }

    /** A namespaced resource, e.g. a custom resource with its own POJO. */
    public static <T> ResourceType<T> namespaced(String group, String version, String plural, String kind, Class<T> type) {
        return new ResourceType<>(group, version, plural, kind, true, type);
    }

    /** A cluster-scoped resource. */
    public static <T> ResourceType<T> clusterScoped(String group, String version, String plural, String kind,
                                                    Class<T> type) {
        return new ResourceType<>(group, version, plural, kind, false, type);
    }

    /** Any resource as {@link DynamicObject}s. */
    public static ResourceType<DynamicObject> dynamic(String group, String version, String plural, String kind,
                                                      boolean namespaced) {
        return new ResourceType<>(group, version, plural, kind, namespaced, DynamicObject.class);
    }

    /**
     * The same resource read as {@link PartialObjectMetadata}: a client handle on it lists, watches and
     * gets only the objects' metadata (the server strips the rest), and an informer on it caches
     * only that. Idempotent.
     */
    public ResourceType<PartialObjectMetadata> metadataOnly() {
        return new ResourceType<>(group, version, plural, kind, namespaced, PartialObjectMetadata.class);
    }

    /** Whether objects are read as {@link PartialObjectMetadata} (see {@link #metadataOnly()}). */
    public boolean isMetadataOnly() {
        return type == PartialObjectMetadata.class;
    }

    /** {@code v1} or {@code group/version}, as in an object's {@code apiVersion}. */
    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    private static String plural(String kind) {
        String lower = kind.toLowerCase(java.util.Locale.ROOT);
        if (lower.endsWith("s")) {
            return lower + "es";
        }
        if (lower.endsWith("y")) {
            return lower.substring(0, lower.length() - 1) + "ies";
        }
        return lower + "s";
    }
}
