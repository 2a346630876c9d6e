package io.reactiveinformer.e2e.controlplane;

import static io.reactiveinformer.e2e.controlplane.ControlPlane.CALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The namespace controller tears a deleted namespace down: informers see its ConfigMaps deleted, its pods
 * (run by kwok) marked for deletion and then deleted, and the Namespace itself Terminating before it goes.
 */
@KubeApiServerTest(controlPlane = true)
class NamespaceTeardownE2eTest {

    private static final int MAPS = 10;
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    private final KubernetesClient admin;
    private final SharedInformerFactory factory;
    private final Disposable.Composite running = Disposables.composite();

    NamespaceTeardownE2eTest(KubeApiServer env) {
        admin = ControlPlane.admin(env);
        factory = SharedInformerFactory.builder(admin).build();
    }

    @AfterEach
    void stop() {
        running.dispose();
        factory.shutdown().block(CALL);
        admin.close();
    }

    @Test
    void aDeletedNamespaceIsSeenTerminatingThenGoneWithEverythingInIt() {
        String namespace = ControlPlane.createNamespace(admin, "teardown");
        SharedIndexInformer<V1Namespace> namespaces = factory.informer(
                InformerSpec.of(V1Namespace.class).withFieldSelector("metadata.name=" + namespace));
        SharedIndexInformer<V1ConfigMap> maps = factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(namespace));
        SharedIndexInformer<V1Pod> pods = factory.informer(InformerSpec.of(V1Pod.class).inNamespace(namespace));
        Recording<V1Namespace> namespaceSeen = record(namespaces);
        Recording<V1ConfigMap> mapsSeen = record(maps);
        Recording<V1Pod> podsSeen = record(pods);
        factory.start();
        StepVerifier.create(factory.waitForCacheSync()).expectComplete().verify(DEADLINE);

        Flux.range(0, MAPS).flatMap(i -> admin.resource(V1ConfigMap.class).inNamespace(namespace)
                .create(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                        .metadata(new V1ObjectMeta().name("map-" + i)).data(Map.of("i", Integer.toString(i)))))
                .then().block(CALL);
        admin.resource(V1Deployment.class).inNamespace(namespace)
                .create(ControlPlane.deployment("app", 3)).block(CALL);
        StepVerifier.create(Convergence.until(() -> maps.indexer().list().size() == MAPS + 1
                                && pods.indexer().list().size() == 3
                                && pods.indexer().list().stream().allMatch(p -> "Running".equals(p.getStatus().getPhase())),
                        DEADLINE, Schedulers.parallel()))
                .expectComplete().verify(DEADLINE.plusSeconds(5));
        assertThat(maps.indexer().list()).extracting(m -> m.getMetadata().getName())
                .as("the controller manager publishes the cluster's CA in every namespace").contains("kube-root-ca.crt");

        admin.resource(V1Namespace.class).delete(namespace).block(CALL);

        // Each informer has its own watch: the namespace's deletion may be seen before its contents'.
        StepVerifier.create(Convergence.until(() -> !namespaceSeen.deletions().isEmpty() && maps.indexer().list().isEmpty()
                        && pods.indexer().list().isEmpty(), DEADLINE, Schedulers.parallel()))
                .expectComplete().verify(DEADLINE.plusSeconds(5));
        assertThat(namespaces.indexer().list()).isEmpty();
        assertThat(namespaceSeen.updates(null)).as("the namespace while it is torn down").isNotEmpty().allSatisfy(ns -> {
            assertThat(ns.getMetadata().getDeletionTimestamp()).isNotNull();
            assertThat(ns.getStatus().getPhase()).isEqualTo("Terminating");
        });
        assertThat(mapsSeen.deletions()).hasSize(MAPS + 1);
        assertThat(podsSeen.deletions()).hasSize(3).allSatisfy(pod ->
                assertThat(pod.lastState().getMetadata().getDeletionTimestamp()).as("a pod's last state").isNotNull());
        assertThat(podsSeen.updates(null)).as("a pod marked for deletion before kwok, as a kubelet, deletes it")
                .anySatisfy(pod -> assertThat(pod.getMetadata().getDeletionTimestamp()).isNotNull());
    }

    private <T extends KubernetesObject> Recording<T> record(SharedIndexInformer<T> informer) {
        Recording<T> recording = new Recording<>();
        running.add(informer.notifications().subscribe(recording));
        return recording;
    }
}
