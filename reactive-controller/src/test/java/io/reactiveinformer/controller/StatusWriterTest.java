package io.reactiveinformer.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** Status written through server-side apply and through update with conflict retry, over HTTP on the simulated server. */
@Timeout(30)
class StatusWriterTest {

    private static final ResourceType<V1Deployment> DEPLOYMENTS = ResourceType.of(V1Deployment.class);

    private final SimulatedApiServer server = SimulatedApiServer.start();
    private final KubernetesClient client = KubernetesClient.create(ClientConfig.forServer(server.url()));
    private final SharedIndexInformer<V1Deployment> informer = SharedIndexInformer.builder(V1Deployment.class,
            ListerWatcher.of(client.resource(V1Deployment.class).inAnyNamespace())).build();
    private final StatusWriter<V1Deployment> status =
            StatusWriter.of(client.resource(V1Deployment.class), informer, "widget-controller", Schedulers.parallel());

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private V1Deployment stored() {
        return server.state().find(DEPLOYMENTS, "default", "web").orElseThrow();
    }

    private void createDeployment() {
        Map<String, String> labels = Map.of("app", "web");
        server.state().create(new V1Deployment().metadata(new V1ObjectMeta().namespace("default").name("web"))
                .spec(new V1DeploymentSpec().replicas(3).selector(new V1LabelSelector().matchLabels(labels))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                                .spec(new V1PodSpec().containers(List.of(new V1Container().name("web").image("nginx")))))));
    }

    @Test
    void applyOwnsExactlyTheStatusFieldsItSets() {
        createDeployment();
        V1Deployment applied = new V1Deployment().apiVersion("apps/v1").kind("Deployment")
                .metadata(new V1ObjectMeta().namespace("default").name("web"))
                .status(new V1DeploymentStatus().observedGeneration(1L).availableReplicas(3));

        StepVerifier.create(status.apply(applied)).expectNextCount(1).verifyComplete();

        V1Deployment stored = stored();
        assertThat(stored.getStatus().getAvailableReplicas()).isEqualTo(3);
        assertThat(stored.getSpec().getReplicas()).isEqualTo(3);
        V1ManagedFieldsEntry entry = stored.getMetadata().getManagedFields().stream()
                .filter(e -> "widget-controller".equals(e.getManager())).findFirst().orElseThrow();
        assertThat(entry.getOperation()).isEqualTo("Apply");
        assertThat(entry.getSubresource()).isEqualTo("status");

        V1Deployment fewer = new V1Deployment().apiVersion("apps/v1").kind("Deployment")
                .metadata(new V1ObjectMeta().namespace("default").name("web"))
                .status(new V1DeploymentStatus().observedGeneration(1L));
        StepVerifier.create(status.apply(fewer)).expectNextCount(1).verifyComplete();
        assertThat(stored().getStatus().getAvailableReplicas()).as("no longer applied, owned by no one else").isNull();
    }

    @Test
    void updateRetriesAConflictOnAFreshRead() {
        createDeployment();
        AtomicInteger attempts = new AtomicInteger();

        StepVerifier.create(status.update(Request.of("default", "web"), read -> {
                    if (attempts.incrementAndGet() == 1) {
                        labelConcurrently("first");
                    }
                    read.setStatus(new V1DeploymentStatus().observedGeneration(7L).availableReplicas(2));
                    return read;
                }))
                .assertNext(written -> assertThat(written.getStatus().getAvailableReplicas()).isEqualTo(2))
                .verifyComplete();

        assertThat(attempts).as("the first replace met a Conflict").hasValue(2);
        assertThat(stored().getStatus().getObservedGeneration()).isEqualTo(7);
        assertThat(stored().getMetadata().getLabels()).as("the concurrent change is kept").containsEntry("touched", "first");
    }

    @Test
    void updateGivesUpWithTheConflictAfterFiveAttempts() {
        createDeployment();
        AtomicInteger attempts = new AtomicInteger();

        StepVerifier.create(status.update(Request.of("default", "web"), read -> {
                    labelConcurrently("attempt-" + attempts.incrementAndGet());
                    read.setStatus(new V1DeploymentStatus().observedGeneration(7L));
                    return read;
                }))
                .expectError(KubernetesApiException.Conflict.class)
                .verify(Duration.ofSeconds(10));

        assertThat(attempts).hasValue(5);
        V1DeploymentStatus stored = stored().getStatus();
        assertThat(stored == null ? null : stored.getObservedGeneration()).as("never written").isNull();
    }

    /** Another writer changes the object between this writer's read and its replace. */
    private void labelConcurrently(String value) {
        V1Deployment current = stored();
        Map<String, String> labels = new HashMap<>(current.getMetadata().getLabels() == null ? Map.of()
                : current.getMetadata().getLabels());
        labels.put("touched", value);
        current.getMetadata().setLabels(labels);
        server.state().update(current);
    }
}
