package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Secret;
import io.reactiveinformer.api.KubernetesApiException;

/** The defaults controllers read (Pods, Deployments, Namespaces, Secrets), generation where kept, create rules. */
abstract class DefaultsContract extends ClientContract {

    DefaultsContract(Backend backend) {
        super(backend);
    }

    @Test
    void podsGetTheirSpecDefaultsPhasePendingAndAGeneration() {
        String ns = namespace("defaults-pod");
        V1Pod pod = await(admin().resource(V1Pod.class).inNamespace(ns).create(new V1Pod()
                .metadata(new V1ObjectMeta().name("p"))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("tagged").image("example/e2e:1"),
                        new V1Container().name("latest").image("example/e2e"))))));

        V1PodSpec spec = pod.getSpec();
        assertThat(spec.getRestartPolicy()).isEqualTo("Always");
        assertThat(spec.getDnsPolicy()).isEqualTo("ClusterFirst");
        assertThat(spec.getSchedulerName()).isEqualTo("default-scheduler");
        assertThat(spec.getTerminationGracePeriodSeconds()).isEqualTo(30L);
        assertThat(spec.getEnableServiceLinks()).isTrue();
        assertThat(spec.getContainers()).extracting(V1Container::getImagePullPolicy).containsExactly("IfNotPresent", "Always");
        assertThat(spec.getContainers()).extracting(V1Container::getTerminationMessagePath)
                .containsOnly("/dev/termination-log");
        assertThat(spec.getContainers()).extracting(V1Container::getTerminationMessagePolicy).containsOnly("File");
        assertThat(pod.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(pod.getStatus().getQosClass()).isEqualTo("BestEffort");
        assertThat(pod.getMetadata().getGeneration()).isEqualTo(1L);
    }

    @Test
    void deploymentsGetTheirStrategyAndLimitsConfigMapsNoGeneration() {
        String ns = namespace("defaults-deploy");
        V1Deployment deployment = await(admin().resource(V1Deployment.class).inNamespace(ns)
                .create(WriteContract.deployment("d", 2)));
        V1ConfigMap map = await(configMaps(ns).create(configMap("c", Map.of())));

        assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
        assertThat(deployment.getSpec().getStrategy().getRollingUpdate().getMaxSurge()).isEqualTo(new IntOrString("25%"));
        assertThat(deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable())
                .isEqualTo(new IntOrString("25%"));
        assertThat(deployment.getSpec().getRevisionHistoryLimit()).isEqualTo(10);
        assertThat(deployment.getSpec().getProgressDeadlineSeconds()).isEqualTo(600);
        assertThat(deployment.getSpec().getTemplate().getSpec().getRestartPolicy()).isEqualTo("Always");
        assertThat(deployment.getMetadata().getGeneration()).isEqualTo(1L);
        assertThat(map.getMetadata().getGeneration()).as("config maps keep no generation").isNull();
    }

    @Test
    void namespacesAreActiveWithTheirNameLabelAndSecretsTurnStringDataIntoData() {
        String ns = namespace("defaults-ns");
        V1Namespace namespace = await(admin().resource(V1Namespace.class).get(ns));
        V1Secret secret = await(admin().resource(V1Secret.class).inNamespace(ns).create(new V1Secret()
                .metadata(new V1ObjectMeta().name("s")).stringData(Map.of("password", "hunter2"))));

        assertThat(namespace.getStatus().getPhase()).isEqualTo("Active");
        assertThat(namespace.getSpec().getFinalizers()).containsExactly("kubernetes");
        assertThat(namespace.getMetadata().getLabels()).containsEntry("kubernetes.io/metadata.name", ns);
        assertThat(secret.getType()).isEqualTo("Opaque");
        assertThat(secret.getStringData()).isNullOrEmpty();
        assertThat(new String(secret.getData().get("password"), StandardCharsets.UTF_8)).isEqualTo("hunter2");
    }

    @Test
    void aResourceVersionOnCreateIsAnInternalError() {
        V1ConfigMap withVersion = configMap("c", Map.of());
        withVersion.getMetadata().setResourceVersion("5");

        assertThatThrownBy(() -> await(configMaps(namespace("defaults-rv")).create(withVersion)))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(500);
                    assertThat(e.getMessage()).contains("resourceVersion should not be set on objects to be created");
                });
    }
}
