package io.reactiveinformer.e2e.controlplane;

import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the tests of this package share: an admin client on the environment with a control plane
 * ({@code @KubeApiServerTest(controlPlane = true)}, which fails them, never skips them, when it cannot be
 * had), their own namespaces, and Deployments of pods that kwok's fake nodes run.
 */
final class ControlPlane {

    static final Duration CALL = Duration.ofSeconds(30);

    private ControlPlane() {
    }

    /** An admin client. */
    static KubernetesClient admin(KubeApiServer env) {
        return KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"));
    }

    /** A new namespace named {@code prefix} and a random suffix. */
    static String createNamespace(KubernetesClient client, String prefix) {
        return client.resource(V1Namespace.class)
                .create(new V1Namespace().apiVersion("v1").kind("Namespace")
                        .metadata(new V1ObjectMeta().generateName(prefix + "-")))
                .block(CALL).getMetadata().getName();
    }

    /** A Deployment of {@code replicas} pods labelled {@code app=<name>}, each one container that never runs. */
    static V1Deployment deployment(String name, int replicas) {
        Map<String, String> labels = Map.of("app", name);
        return new V1Deployment().apiVersion("apps/v1").kind("Deployment")
                .metadata(new V1ObjectMeta().name(name))
                .spec(new V1DeploymentSpec().replicas(replicas)
                        .selector(new V1LabelSelector().matchLabels(labels))
                        .template(new V1PodTemplateSpec()
                                .metadata(new V1ObjectMeta().labels(labels))
                                .spec(new V1PodSpec().containers(List.of(
                                        new V1Container().name("app").image("example.invalid/app:1"))))));
    }

    /** Sets the Deployment's replicas. */
    static void scale(KubernetesClient client, String namespace, String name, int replicas) {
        client.resource(V1Deployment.class).inNamespace(namespace)
                .patch(name, PatchType.MERGE, "{\"spec\":{\"replicas\":" + replicas + "}}")
                .block(CALL);
    }

    /**
     * Whether the Deployment controller has acted on the Deployment's latest spec and all its
     * {@code replicas} pods are up to date and Ready (no pod at all for 0).
     */
    static boolean rolledOut(V1Deployment deployment, int replicas) {
        var status = deployment.getStatus();
        return status != null
                && status.getObservedGeneration() != null
                && status.getObservedGeneration() >= deployment.getMetadata().getGeneration()
                && orZero(status.getReplicas()) == replicas
                && orZero(status.getUpdatedReplicas()) == replicas
                && orZero(status.getReadyReplicas()) == replicas;
    }

    private static int orZero(Integer count) {
        return count == null ? 0 : count;
    }
}
