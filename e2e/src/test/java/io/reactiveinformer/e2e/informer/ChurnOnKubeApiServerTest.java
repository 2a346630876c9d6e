package io.reactiveinformer.e2e.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.Churn;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** The test kit's {@link Churn} drives a real cluster through the client, and an informer follows it. */
@KubeApiServerTest
class ChurnOnKubeApiServerTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @Test
    void churnThroughTheClientChangesTheClusterAndAnInformerConverges(KubeApiServer env) {
        try (KubernetesClient client = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"))) {
            String namespace = client.resource(V1Namespace.class)
                    .create(new V1Namespace().metadata(new V1ObjectMeta().generateName("churn-")))
                    .block(DEADLINE).getMetadata().getName();
            ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class).inNamespace(namespace)
                    .withLabelSelector("churn=true");
            SharedIndexInformer<V1ConfigMap> informer = SharedIndexInformer.builder(
                    InformerSpec.of(V1ConfigMap.class).inNamespace(namespace).withLabelSelector("churn=true"),
                    ListerWatcher.of(maps)).build();
            Disposable running = informer.start();
            try {
                StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);
                Churn churn = Churn.through(client, ResourceType.of(V1ConfigMap.class), namespace, 7);

                StepVerifier.create(churn.every(Duration.ofMillis(5), 150)).expectNextCount(150).expectComplete()
                        .verify(DEADLINE);

                StepVerifier.create(Convergence.cacheMatchesList(informer.indexer()::list, ListerWatcher.of(maps),
                        DEADLINE, Schedulers.parallel())).expectComplete().verify(DEADLINE.plusSeconds(5));
                assertThat(informer.indexer().list()).extracting(m -> m.getMetadata().getName())
                        .containsExactlyInAnyOrderElementsOf(churn.live()).isNotEmpty();
                assertThat(informer.indexer().list()).as("updates went through").anySatisfy(m ->
                        assertThat(m.getMetadata().getAnnotations()).containsKey("churn/step"));
            } finally {
                running.dispose();
                client.resource(V1Namespace.class).delete(namespace).block(DEADLINE);
            }
        }
    }
}
