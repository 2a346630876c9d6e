package io.reactiveinformer.e2e.client;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.AfterEach;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import reactor.core.publisher.Mono;

/**
 * What the client contract tests share: the backend, namespaces of their own, and bounded waits.
 * Every wait is bounded: {@link #TIMEOUT} for a request, the watch's own timeout plus
 * {@link #TIMEOUT} for a watch.
 */
abstract class ClientContract {

    /** Generous: the machine is shared and the real server may be restarting. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Backend backend;

    ClientContract(Backend backend) {
        this.backend = backend;
    }

    Backend backend() {
        return backend;
    }

    @AfterEach
    void closeBackend() {
        backend.close();
    }

    KubernetesClient admin() {
        return backend().admin();
    }

    /** A namespace of this test's own (namespaces are never deleted in the test environment). */
    String namespace(String prefix) {
        String name = prefix + "-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        await(admin().resource(V1Namespace.class).create(new V1Namespace().metadata(new V1ObjectMeta().name(name))));
        return name;
    }

    ResourceClient<V1ConfigMap> configMaps(String namespace) {
        return admin().resource(V1ConfigMap.class).inNamespace(namespace);
    }

    static V1ConfigMap configMap(String name, Map<String, String> data) {
        return new V1ConfigMap().apiVersion("v1").kind("ConfigMap").metadata(new V1ObjectMeta().name(name)).data(data);
    }

    static V1ConfigMap configMap(String name, Map<String, String> data, Map<String, String> labels) {
        V1ConfigMap map = configMap(name, data);
        map.getMetadata().setLabels(labels);
        return map;
    }

    /** The value of a request, waited for on the test thread (never a non-blocking one) for at most {@link #TIMEOUT}. */
    static <T> T await(Mono<T> request) {
        return request.block(TIMEOUT);
    }

    static long rv(String resourceVersion) {
        return Long.parseLong(resourceVersion);
    }

    static String rvOf(WatchEvent<?> event) {
        return ((KubernetesObject) event.object()).getMetadata().getResourceVersion();
    }

    static String nameOf(WatchEvent<?> event) {
        return ((KubernetesObject) event.object()).getMetadata().getName();
    }

    /** {@code TYPE name} of an event, for readable assertions. */
    static String describe(WatchEvent<?> event) {
        return event.type() + " " + nameOf(event);
    }
}
