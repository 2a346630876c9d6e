package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/** {@link KeyMapper#ownerReferences}. */
final class OwnerReferenceMapper<T extends KubernetesObject> implements KeyMapper<T> {

    private final String group;
    private final String kind;
    private final boolean controllerOnly;
    private final boolean clusterScopedOwner;

    OwnerReferenceMapper(String apiVersion, String kind, boolean controllerOnly, boolean clusterScopedOwner) {
        this.group = OwnerReferences.groupOf(Objects.requireNonNull(apiVersion, "apiVersion"));
        this.kind = Objects.requireNonNull(kind, "kind");
        this.controllerOnly = controllerOnly;
        this.clusterScopedOwner = clusterScopedOwner;
    }

    @Override
    public Collection<Request> map(T object) {
        V1ObjectMeta metadata = object.getMetadata();
        if (metadata == null || metadata.getOwnerReferences() == null) {
            return List.of();
        }
        List<Request> owners = new ArrayList<>(1);
        for (V1OwnerReference owner : metadata.getOwnerReferences()) {
            if (kind.equals(owner.getKind()) && owner.getApiVersion() != null
                    && group.equals(OwnerReferences.groupOf(owner.getApiVersion()))
                    && (!controllerOnly || Boolean.TRUE.equals(owner.getController()))
                    && owner.getName() != null && !owner.getName().isEmpty()) {
                owners.add(new Request(clusterScopedOwner ? null : metadata.getNamespace(), owner.getName()));
            }
        }
        return owners;
    }

    @Override
    public String toString() {
        return "ownerReferences(" + (group.isEmpty() ? "" : group + "/") + kind
                + (clusterScopedOwner ? ", cluster-scoped" : "") + (controllerOnly ? ", controller only)" : ")");
    }
}
