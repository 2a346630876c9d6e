package io.reactiveinformer.controller;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import java.util.List;
import java.util.Map;

/** Test objects: ReplicaSets as primaries, Pods owned by them. */
final class TestObjects {

    private TestObjects() {
    }

    static V1ReplicaSet replicaSet(String namespace, String name, long generation) {
        return replicaSet(namespace, name, generation, Map.of());
    }

    static V1ReplicaSet replicaSet(String namespace, String name, long generation, Map<String, String> labels) {
        return new V1ReplicaSet().apiVersion("apps/v1").kind("ReplicaSet")
                .metadata(new V1ObjectMeta().namespace(namespace).name(name).generation(generation).labels(labels));
    }

    static V1Pod pod(String namespace, String name, V1OwnerReference... owners) {
        return new V1Pod().apiVersion("v1").kind("Pod")
                .metadata(new V1ObjectMeta().namespace(namespace).name(name).ownerReferences(List.of(owners)));
    }

    static V1OwnerReference controlledBy(String replicaSet) {
        return new V1OwnerReference().apiVersion("apps/v1").kind("ReplicaSet").name(replicaSet).uid("uid-" + replicaSet)
                .controller(true);
    }

    static V1OwnerReference ownedBy(String apiVersion, String kind, String name) {
        return new V1OwnerReference().apiVersion(apiVersion).kind(kind).name(name).uid("uid-" + name);
    }
}
