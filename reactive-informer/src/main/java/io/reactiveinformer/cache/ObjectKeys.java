package io.reactiveinformer.cache;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;

/**
 * The cache key of an object: {@code namespace/name}, or {@code name} for a cluster-scoped object
 * (client-go's {@code MetaNamespaceKeyFunc}). Every map in this package is keyed this way.
 */
public final class ObjectKeys {

    private ObjectKeys() {
    }

    /**
     * The key of an object.
     *
     * @throws IllegalArgumentException when the object has no metadata or no name
     */
    public static String keyOf(KubernetesObject object) {
        V1ObjectMeta metadata = object.getMetadata();
        if (metadata == null || metadata.getName() == null || metadata.getName().isEmpty()) {
            throw new IllegalArgumentException("object has no metadata.name, it cannot be keyed: " + object.getKind());
        }
        return key(metadata.getNamespace(), metadata.getName());
    }

    /** The key for a name in a namespace; a {@code null} or empty namespace means cluster-scoped. */
    public static String key(String namespace, String name) {
        return namespace == null || namespace.isEmpty() ? name : namespace + '/' + name;
    }

    /** The namespace part of a key; empty for a cluster-scoped key. */
    public static String namespaceOf(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? "" : key.substring(0, slash);
    }

    /** The name part of a key. */
    public static String nameOf(String key) {
        return key.substring(key.indexOf('/') + 1);
    }
}
