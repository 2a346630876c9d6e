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

    OwnerReferenceMapper(String apiVersion, String kind, boolean controllerOnly) {
        this.group = groupOf(Objects.requireNonNull(apiVersion, "apiVersion"));
        this.kind = Objects.requireNonNull(kind, "kind");
        this.controllerOnly = controllerOnly;
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
                    && group.equals(groupOf(owner.getApiVersion()))
                    && (!controllerOnly || Boolean.TRUE.equals(owner.getController()))
                    && owner.getName() != null && !owner.getName().isEmpty()) {
                owners.add(new Request(metadata.getNamespace(), owner.getName()));
            }
        }
        return owners;
    }

    /** {@code apps/v1} → {@code apps}; the core group's {@code v1} → {@code ""}. */
    private static String groupOf(String apiVersion) {
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    @Override
    public String toString() {
        return "ownerReferences(" + (group.isEmpty() ? "" : group + "/") + kind
                + (controllerOnly ? ", controller only)" : ")");
    }
}
