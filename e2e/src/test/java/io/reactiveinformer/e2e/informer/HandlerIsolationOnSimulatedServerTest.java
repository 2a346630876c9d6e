package io.reactiveinformer.e2e.informer;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import reactor.core.publisher.Mono;

/** {@link HandlerIsolationContract} over HTTP against the simulated server. */
class HandlerIsolationOnSimulatedServerTest extends HandlerIsolationContract {

    private final SimulatedApiServer server = SimulatedApiServer.start(ClusterState.builder().build());
    private final KubernetesClient client = server.newClient();

    @Override
    KubernetesClient client() {
        return client;
    }

    @Override
    String namespace() {
        return "isolation";
    }

    @Override
    Mono<?> write(ResourceClient<V1ConfigMap> maps, String name, long stampNanos) {
        return Mono.fromCallable(() -> server.state().update(new V1ConfigMap()
                .metadata(new V1ObjectMeta().namespace(namespace()).name(name))
                .data(Map.of("t", Long.toString(stampNanos)))));
    }

    @AfterEach
    void close() {
        client.close();
        server.close();
    }
}
