package io.reactiveinformer.test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.PatchType;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.client.ResourceType;
import io.reactiveinformer.client.WatchEvent;
import io.reactiveinformer.client.WatchOptions;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** The README's example, verbatim between the markers: it must compile and pass. */
@ExtendWith(SimulatedApiServerExtension.class)
class ReadmeExampleTest {

    // README-BEGIN
    @Test
    void labelsEveryConfigMap(SimulatedApiServer server, KubernetesClient client) {
        new Churn(server.state(), ResourceType.of(V1ConfigMap.class), "default", 42).run(50);
        ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class); // namespace "default"
        Map<String, V1ConfigMap> cache = new ConcurrentHashMap<>();
        Disposable controller = maps.watch(WatchOptions.from("0"))             // the controller under test
                .filter(e -> e.type() != WatchEvent.Type.BOOKMARK)
                .doOnNext(e -> cache.put(e.object().getMetadata().getName(), e.object()))
                .filter(e -> e.type() == WatchEvent.Type.ADDED)
                .concatMap(e -> maps.patch(e.object().getMetadata().getName(), PatchType.MERGE,
                        "{\"metadata\":{\"labels\":{\"seen\":\"yes\"}}}"))
                .subscribe();
        StepVerifier.create(Convergence.until(() -> server.state().list(V1ConfigMap.class).stream()
                        .allMatch(m -> m.getMetadata().getLabels().containsKey("seen")), Duration.ofSeconds(10), Schedulers.parallel())
                .then(Convergence.cacheMatchesList(cache::values, maps, Duration.ofSeconds(10), Schedulers.parallel())))
                .verifyComplete();
        controller.dispose();
    }
    // README-END
}
