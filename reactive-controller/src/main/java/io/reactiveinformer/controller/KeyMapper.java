package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ResourceType;
import java.util.Collection;

/**
 * Maps a watched object to the {@link Request}s of the primary objects it concerns (controller-runtime's
 * {@code handler.EventHandler} of a secondary watch), e.g. a Pod to the ReplicaSet that owns it.
 *
 * <p>Called for every notification of the watched informer that passes the watch's predicate: for an
 * update with both the old and the new state (so that a changed owner reaches both owners), for a
 * deletion with the last known state. Runs on the informer's delivery thread: it must be fast, must not
 * block, and may read caches. An exception is logged and the notification skipped.
 *
 * @param <T> the watched object type
 */
@FunctionalInterface
public interface KeyMapper<T extends KubernetesObject> {

    /** The requests {@code object} concerns; empty for none. */
    Collection<Request> map(T object);

    /**
     * The owners of the object named in its {@code metadata.ownerReferences} with the given kind and API
     * group (the version in {@code apiVersion} is ignored, as owners may be written with any served
     * version), in the object's own namespace (Kubernetes requires a namespaced owner to share its
     * dependent's namespace; a cluster-scoped object maps to cluster-scoped owners). For a cluster-scoped owner
     * of namespaced objects use {@link #controllerOwner(ResourceType)}, which knows the owner's scope.
     *
     * @param apiVersion     the primary's {@code apiVersion}, e.g. {@code apps/v1} or {@code v1}
     * @param kind           the primary's {@code kind}, e.g. {@code ReplicaSet}
     * @param controllerOnly whether only the reference marked {@code controller: true} counts (what a
     *                       controller creating its own secondaries wants), or every matching one
     */
    static <T extends KubernetesObject> KeyMapper<T> ownerReferences(String apiVersion, String kind,
                                                                     boolean controllerOnly) {
        return new OwnerReferenceMapper<>(apiVersion, kind, controllerOnly, false);
    }

    /** {@link #ownerReferences(String, String, boolean) ownerReferences(apiVersion, kind, true)}. */
    static <T extends KubernetesObject> KeyMapper<T> controllerOwner(String apiVersion, String kind) {
        return new OwnerReferenceMapper<>(apiVersion, kind, true, false);
    }

    /**
     * The controller of the object, as {@link OwnerReferences#setControllerReference} writes it: the reference
     * marked {@code controller: true} with the kind and API group of {@code owner}, in the object's namespace, or
     * cluster-scoped when {@code owner} is (a cluster-scoped owner may own namespaced objects).
     */
    static <T extends KubernetesObject> KeyMapper<T> controllerOwner(ResourceType<?> owner) {
        return new OwnerReferenceMapper<>(owner.apiVersion(), owner.kind(), true, !owner.namespaced());
    }
}
