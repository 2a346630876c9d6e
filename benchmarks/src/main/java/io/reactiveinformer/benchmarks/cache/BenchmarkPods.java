package io.reactiveinformer.benchmarks.cache;

import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import java.util.List;
import java.util.Map;

/** Small but realistic pods, built once per benchmark so that measurements exclude their allocation. */
public final class BenchmarkPods {

    private BenchmarkPods() {
    }

    public static V1Pod pod(int index, int namespaces, int resourceVersion) {
        return new V1Pod()
                .apiVersion("v1")
                .kind("Pod")
                .metadata(new V1ObjectMeta()
                        .namespace(namespace(index, namespaces))
                        .name("pod-" + index)
                        .uid("uid-" + index)
                        .resourceVersion(String.valueOf(resourceVersion))
                        .labels(Map.of("app", "app-" + (index % 20), "tier", "web")))
                .spec(new V1PodSpec()
                        .nodeName("node-" + (index % 100))
                        .containers(List.of(new V1Container().name("main").image("registry.local/app:1.0"))));
    }

    public static String namespace(int index, int namespaces) {
        return "ns-" + (index % namespaces);
    }
}
