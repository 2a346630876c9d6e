package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Owner references a controller writes on the objects it creates (controller-runtime's {@code controllerutil}),
 * so that they are garbage-collected with their owner and {@link KeyMapper#controllerOwner} maps them back to it.
 */
public final class OwnerReferences {

    private OwnerReferences() {
    }

    /**
     * Makes {@code owner} the controller of {@code owned} (controller-runtime's {@code SetControllerReference}):
     * a reference to it with {@code controller: true} and {@code blockOwnerDeletion: true}, replacing any
     * reference to the same object (same API group, kind and name; the version is the owner's) and keeping the
     * others. Idempotent. Changes {@code owned} in place: pass an object being built for a create or an apply,
     * never one from a cache.
     *
     * @param owner an object read from the server (with its uid), with its apiVersion and kind, or of an
     *              official model class, which gives them
     * @return {@code owned}
     * @throws AlreadyControlledException when another object already is its controller
     * @throws CrossNamespaceException    when the owner is namespaced and {@code owned} is in another namespace
     *                                    or cluster-scoped (Kubernetes would collect it at once)
     * @throws IllegalArgumentException   when the owner lacks a name or uid
     */
    public static <T extends KubernetesObject> T setControllerReference(KubernetesObject owner, T owned) {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(owned, "owned");
        V1ObjectMeta ownerMeta = Objects.requireNonNull(owner.getMetadata(), "owner's metadata");
        if (ownerMeta.getName() == null || ownerMeta.getUid() == null) {
            throw new IllegalArgumentException("the owner needs a name and a uid (read it from the server): "
                    + ownerMeta.getName());
        }
        V1ObjectMeta meta = Objects.requireNonNull(owned.getMetadata(), "owned's metadata");
        String ownerNamespace = emptyToNull(ownerMeta.getNamespace());
        if (ownerNamespace != null && !ownerNamespace.equals(emptyToNull(meta.getNamespace()))) {
            throw new CrossNamespaceException("a namespaced owner (" + ownerNamespace + "/" + ownerMeta.getName()
                    + ") can only own objects of its namespace, not " + describe(meta));
        }
        String[] apiVersionAndKind = apiVersionAndKind(owner);
        V1OwnerReference reference = new V1OwnerReference()
                .apiVersion(apiVersionAndKind[0])
                .kind(apiVersionAndKind[1])
                .name(ownerMeta.getName())
                .uid(ownerMeta.getUid())
                .controller(true)
                .blockOwnerDeletion(true);
        List<V1OwnerReference> references = meta.getOwnerReferences() == null ? new ArrayList<>()
                : new ArrayList<>(meta.getOwnerReferences());
        for (V1OwnerReference existing : references) {
            if (Boolean.TRUE.equals(existing.getController()) && !sameObject(existing, reference)) {
                throw new AlreadyControlledException(describe(meta), existing);
            }
        }
        references.removeIf(existing -> sameObject(existing, reference));
        references.add(reference);
        meta.setOwnerReferences(references);
        return owned;
    }

    /** Same group, kind and name: the version may differ, as one object is served in several. */
    private static boolean sameObject(V1OwnerReference a, V1OwnerReference b) {
        return Objects.equals(a.getKind(), b.getKind()) && Objects.equals(a.getName(), b.getName())
                && a.getApiVersion() != null && groupOf(a.getApiVersion()).equals(groupOf(b.getApiVersion()));
    }

    /** {@code apps/v1} → {@code apps}; the core group's {@code v1} → {@code ""}. */
    static String groupOf(String apiVersion) {
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    /** A reference to {@code object} for an Event's {@code regarding}: its apiVersion, kind, name, namespace, uid and version. */
    static V1ObjectReference referenceTo(KubernetesObject object) {
        Objects.requireNonNull(object, "object");
        V1ObjectMeta meta = Objects.requireNonNull(object.getMetadata(), "metadata");
        String[] apiVersionAndKind = apiVersionAndKind(object);
        return new V1ObjectReference().apiVersion(apiVersionAndKind[0]).kind(apiVersionAndKind[1])
                .name(meta.getName()).namespace(emptyToNull(meta.getNamespace())).uid(meta.getUid())
                .resourceVersion(meta.getResourceVersion());
    }

    /**
     * The object's own apiVersion and kind, or those of its official model class: objects of a list carry
     * none.
     */
    private static String[] apiVersionAndKind(KubernetesObject object) {
        if (object.getApiVersion() != null && object.getKind() != null) {
            return new String[] {object.getApiVersion(), object.getKind()};
        }
        ResourceType<?> type;
        try {
            type = ResourceType.of(object.getClass());
        } catch (IllegalArgumentException unknown) {
            throw new IllegalArgumentException(object.getClass().getName() + " " + object.getMetadata().getName()
                    + " has no apiVersion and kind, and its class is not an official model: set them", unknown);
        }
        return new String[] {type.apiVersion(), type.kind()};
    }

    private static String emptyToNull(String namespace) {
        return namespace == null || namespace.isEmpty() ? null : namespace;
    }

    private static String describe(V1ObjectMeta meta) {
        return emptyToNull(meta.getNamespace()) == null ? meta.getName() + " (cluster-scoped)" : meta.getNamespace() + "/" + meta.getName();
    }

    /** {@link #setControllerReference} refused: a namespaced owner and an object outside its namespace. */
    public static final class CrossNamespaceException extends IllegalArgumentException {

        private static final long serialVersionUID = 1L;

        CrossNamespaceException(String message) {
            super(message);
        }
    }

    /** {@link #setControllerReference} refused: the object already has another controller. */
    public static final class AlreadyControlledException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        private final transient V1OwnerReference controller;

        AlreadyControlledException(String owned, V1OwnerReference controller) {
            super(owned + " is already controlled by " + controller.getKind() + " " + controller.getName());
            this.controller = controller;
        }

        /** The reference to the controller it has. */
        public V1OwnerReference controller() {
            return controller;
        }
    }
}
