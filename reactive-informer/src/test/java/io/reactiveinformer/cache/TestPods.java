package io.reactiveinformer.cache;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import java.util.List;
import java.util.Map;

/** Small pods for cache tests. */
public final class TestPods {

    private TestPods() {
    }

    public static V1Pod pod(String namespace, String name, String resourceVersion) {
        return pod(namespace, name, resourceVersion, Map.of());
    }

    public static V1Pod pod(String namespace, String name, String resourceVersion, Map<String, String> labels) {
        return new V1Pod()
                .metadata(new V1ObjectMeta().namespace(namespace).name(name).resourceVersion(resourceVersion).labels(labels))
                .spec(new V1PodSpec());
    }

    public static V1Pod scheduled(String namespace, String name, String resourceVersion, String node) {
        return new V1Pod()
                .metadata(new V1ObjectMeta().namespace(namespace).name(name).resourceVersion(resourceVersion))
                .spec(new V1PodSpec().nodeName(node));
    }

    /** An index from a pod to its node name (none while unscheduled). */
    public static IndexFunction<V1Pod> byNode() {
        return pod -> pod.getSpec() == null || pod.getSpec().getNodeName() == null
                ? List.of()
                : List.of(pod.getSpec().getNodeName());
    }
}
