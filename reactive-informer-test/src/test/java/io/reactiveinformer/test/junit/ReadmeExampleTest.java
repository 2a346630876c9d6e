package io.reactiveinformer.test.junit;

import io.reactiveinformer.test.Churn;
import io.reactiveinformer.test.Convergence;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
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
        SharedIndexInformer<V1ConfigMap> informer = SharedInformerFactory.builder(client).build().informer(V1ConfigMap.class);
        Disposable labeler = informer.notifications()                          // the controller under test
                .concatMap(n -> n instanceof Notification.Added<V1ConfigMap> a ? maps.patch(a.object().getMetadata().getName(),
                        PatchType.MERGE, "{\"metadata\":{\"labels\":{\"seen\":\"yes\"}}}") : Mono.<V1ConfigMap>empty())
                .subscribe();
        Disposable running = informer.start();
        StepVerifier.create(Convergence.until(() -> server.state().list(V1ConfigMap.class).stream()
                        .allMatch(m -> m.getMetadata().getLabels().containsKey("seen")), Duration.ofSeconds(10), Schedulers.parallel())
                .then(Convergence.cacheMatchesList(informer.indexer()::list, ListerWatcher.of(maps), Duration.ofSeconds(10), Schedulers.parallel())))
                .verifyComplete();
        Disposables.composite(labeler, running).dispose();
    }
    // README-END
}
