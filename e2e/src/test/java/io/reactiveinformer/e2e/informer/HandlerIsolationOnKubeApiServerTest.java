package io.reactiveinformer.e2e.informer;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import reactor.core.publisher.Mono;

/** {@link HandlerIsolationContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class HandlerIsolationOnKubeApiServerTest extends HandlerIsolationContract {

    private static final Duration T = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final String namespace;

    HandlerIsolationOnKubeApiServerTest(KubeApiServer env) {
        client = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"));
        namespace = client.resource(V1Namespace.class)
                .create(new V1Namespace().metadata(new V1ObjectMeta().generateName("isolation-")))
                .block(T).getMetadata().getName();
    }

    @Override
    KubernetesClient client() {
        return client;
    }

    @Override
    String namespace() {
        return namespace;
    }

    /** Twice the CPU-bound handler's rate; kube-apiserver and etcd on 2 cores beside a handler burning one may do fewer. */
    @Override
    int rate() {
        return 200;
    }

    /**
     * kube-apiserver's own write-to-watch latency on a loaded 2-core machine is seconds, which would hide
     * what this measures: here the lag counts from the informer receiving the change.
     */
    @Override
    boolean lagFromWrite() {
        return false;
    }

    /**
     * A tenth of the rate's: a loaded machine's kube-apiserver, beside a handler burning a core, has done as
     * few as 80 writes in the ten seconds; the fast subscribers must keep up with however many it does.
     */
    @Override
    int minWrites() {
        return rate() * SECONDS / 10;
    }

    @Override
    Mono<?> write(ResourceClient<V1ConfigMap> maps, String name, long stampNanos) {
        return maps.patch(name, PatchType.MERGE, "{\"data\":{\"t\":\"" + stampNanos + "\"}}");
    }

    @AfterEach
    void close() {
        client.resource(V1Namespace.class).delete(namespace).block(T);
        client.close();
    }
}
