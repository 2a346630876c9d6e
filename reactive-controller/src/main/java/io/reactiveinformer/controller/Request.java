package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.Objects;

/**
 * What a {@link Reconciler} is asked to reconcile: the key of one primary object (controller-runtime's
 * {@code reconcile.Request}). It names the object rather than carrying it, so that many changes of one
 * object collapse into one pending request and the reconciler always reads the newest state from the
 * cache.
 *
 * @param namespace the namespace, or {@code null} for a cluster-scoped object
 * @param name      the name
 */
public record Request(String namespace, String name) {

    public Request {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name must not be empty");
        }
        if (namespace != null && namespace.isEmpty()) {
            namespace = null;
        }
    }

    /** The request for a namespaced object. */
    public static Request of(String namespace, String name) {
        return new Request(namespace, name);
    }

    /** The request for a cluster-scoped object. */
    public static Request clusterScoped(String name) {
        return new Request(null, name);
    }

    /** The request for {@code object}, from its metadata's namespace and name. */
    public static Request of(KubernetesObject object) {
        V1ObjectMeta metadata = Objects.requireNonNull(object.getMetadata(), "metadata");
        return new Request(metadata.getNamespace(), metadata.getName());
    }

    /** The request for a cache key: {@code namespace/name}, or {@code name} for a cluster-scoped object. */
    public static Request parse(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? new Request(null, key) : new Request(key.substring(0, slash), key.substring(slash + 1));
    }

    /** The cache key of the object: {@code namespace/name}, or {@code name} for a cluster-scoped object. */
    public String key() {
        return namespace == null ? name : namespace + "/" + name;
    }

    /** The {@link #key()}, as logs show it. */
    @Override
    public String toString() {
        return key();
    }
}
