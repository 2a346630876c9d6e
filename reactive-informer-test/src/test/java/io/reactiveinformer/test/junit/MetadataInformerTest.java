package io.reactiveinformer.test.junit;

import io.reactiveinformer.test.Convergence;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** A metadata-only informer over HTTP: client-go's metadata informer. */
@ExtendWith(SimulatedApiServerExtension.class)
class MetadataInformerTest {

    private static final Duration T = Duration.ofSeconds(10);

    private static V1ConfigMap map(String name) {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name(name)
                        .labels(Map.of("app", name)).annotations(Map.of("owner", "team-" + name)))
                .data(Map.of("payload", "x".repeat(1000)));
    }

    @Test
    void cachesMetadataAndNotifiesChanges(SimulatedApiServer server, KubernetesClient client) {
        server.state().create(map("a"));
        server.state().create(map("b"));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        SharedIndexInformer<PartialObjectMetadata> informer = factory.metadataInformer(V1ConfigMap.class);
        SharedIndexInformer<V1ConfigMap> full = factory.informer(V1ConfigMap.class);
        try {
            assertThat(informer).isNotSameAs(full)
                    .isSameAs(factory.informer(InformerSpec.metadataOnly(ResourceType.of(V1ConfigMap.class))));
            assertThat(informer.name()).isEqualTo("PartialObjectMetadata(configmaps)");
            factory.start();
            factory.waitForCacheSync().block(T);

            PartialObjectMetadata b = informer.lister().namespace("default").get("b").orElseThrow();
            assertThat(b.getKind()).isEqualTo("PartialObjectMetadata");
            assertThat(b.getApiVersion()).isEqualTo("meta.k8s.io/v1");
            assertThat(b.getMetadata().getLabels()).isEqualTo(Map.of("app", "b"));
            assertThat(b.getMetadata().getAnnotations()).isEqualTo(Map.of("owner", "team-b"));
            assertThat(b.getMetadata().getResourceVersion()).isEqualTo(
                    full.lister().namespace("default").get("b").orElseThrow().getMetadata().getResourceVersion());
            assertThat(full.lister().namespace("default").get("b").orElseThrow().getData()).containsKey("payload");

            StepVerifier.create(informer.notifications()
                            .filter(n -> n instanceof Notification.Updated<PartialObjectMetadata>)
                            .cast(Notification.Updated.class)
                            .next())
                    .then(() -> client.resource(V1ConfigMap.class).patch("a", PatchType.MERGE,
                            "{\"metadata\":{\"annotations\":{\"owner\":\"team-z\"}}}").block(T))
                    .assertNext(updated -> {
                        assertThat(updated.key()).isEqualTo("default/a");
                        assertThat(((PartialObjectMetadata) updated.oldObject()).getMetadata().getAnnotations())
                                .isEqualTo(Map.of("owner", "team-a"));
                        assertThat(((PartialObjectMetadata) updated.newObject()).getMetadata().getAnnotations())
                                .isEqualTo(Map.of("owner", "team-z"));
                    })
                    .expectComplete()
                    .verify(T);

            StepVerifier.create(Convergence.cacheMatchesList(informer.indexer()::list,
                            ListerWatcher.of(client.metadata(V1ConfigMap.class).inAnyNamespace()), T, Schedulers.parallel()))
                    .verifyComplete();
        } finally {
            factory.shutdown().block(T);
        }
    }
}
