package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1EmptyDirVolumeSource;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1Volume;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.ResourceClient;

/**
 * Strategic merge patches of a built-in kind merge lists by the merge keys of kube-apiserver's
 * OpenAPI, with its directives and its order of the merged items; custom resources refuse them (415).
 */
abstract class StrategicMergePatchContract extends ClientContract {

    StrategicMergePatchContract(Backend backend) {
        super(backend);
    }

    @Test
    void aSidecarAddedToADeploymentKeepsTheExistingContainers() {
        V1Deployment patched = patch(spec("\"containers\":[{\"name\":\"sidecar\",\"image\":\"s:1\"}]"));

        assertThat(containers(patched)).containsExactly("sidecar s:1", "app a:1", "two t:1");
        assertThat(patched.getSpec().getTemplate().getSpec().getContainers().get(1).getArgs()).containsExactly("1", "2");
    }

    @Test
    void patchDeleteRemovesAContainerByName() {
        V1Deployment patched = patch(spec("\"containers\":[{\"name\":\"app\",\"$patch\":\"delete\"}]"));

        assertThat(containers(patched)).containsExactly("two t:1");
    }

    @Test
    void envIsMergedByName() {
        V1Deployment patched = patch(spec(
                "\"containers\":[{\"name\":\"app\",\"env\":[{\"name\":\"C\",\"value\":\"3\"},{\"name\":\"A\",\"value\":\"9\"}]}]"));

        assertThat(patched.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .extracting(e -> e.getName() + "=" + e.getValue()).containsExactly("C=3", "A=9", "B=2");
    }

    @Test
    void setElementOrderOrdersTheContainers() {
        V1Deployment patched = patch(spec("\"$setElementOrder/containers\":[{\"name\":\"two\"},{\"name\":\"x\"},"
                + "{\"name\":\"app\"}],\"containers\":[{\"name\":\"x\",\"image\":\"x:1\"}]"));

        assertThat(containers(patched)).containsExactly("two t:1", "x x:1", "app a:1");
    }

    @Test
    void retainKeysClearsAVolumesOtherSource() {
        V1Deployment patched = patch(spec("\"volumes\":[{\"name\":\"v\",\"configMap\":{\"name\":\"cm\"},"
                + "\"$retainKeys\":[\"configMap\",\"name\"]}]"));

        V1Volume volume = patched.getSpec().getTemplate().getSpec().getVolumes().get(0);
        assertThat(volume.getConfigMap().getName()).isEqualTo("cm");
        assertThat(volume.getEmptyDir()).isNull();
    }

    @Test
    void finalizersAreUnitedAndDeleteFromPrimitiveListRemovesOne() {
        String ns = namespace("smp-finalizers");
        ResourceClient<V1Deployment> deployments = deployments(ns);

        V1Deployment united = await(deployments.patch("d", PatchType.STRATEGIC_MERGE,
                "{\"metadata\":{\"finalizers\":[\"e2e.io/c\",\"e2e.io/a\"]}}"));
        V1Deployment removed = await(deployments.patch("d", PatchType.STRATEGIC_MERGE,
                "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"e2e.io/a\",\"e2e.io/c\"]}}"));

        assertThat(united.getMetadata().getFinalizers()).containsExactly("e2e.io/c", "e2e.io/a", "e2e.io/b");
        assertThat(removed.getMetadata().getFinalizers()).containsExactly("e2e.io/b");
    }

    @Test
    void anAtomicListIsReplaced() {
        V1Deployment patched = patch(spec("\"containers\":[{\"name\":\"app\",\"args\":[\"3\"]}]"));

        assertThat(patched.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs()).containsExactly("3");
    }

    @Test
    void malformedDirectivesGetTheRealServersAnswer() {
        ResourceClient<V1Deployment> deployments = deployments(namespace("smp-malformed"));

        assertThatThrownBy(() -> await(deployments.patch("d", PatchType.STRATEGIC_MERGE,
                "{\"metadata\":{\"$deleteFromPrimitiveList\":[\"e2e.io/b\"]}}")))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(400);
                    assertThat(e.reason()).isEqualTo("BadRequest");
                    assertThat(message(e)).isEqualTo("invalid patch format of primitive list");
                });
        assertThatThrownBy(() -> await(deployments.patch("d", PatchType.STRATEGIC_MERGE,
                spec("\"containers\":[{\"name\":\"app\",\"$patch\":\"bogus\"}]"))))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(500);
                    assertThat(e.reason()).isNull();
                    assertThat(message(e)).isEqualTo("unknown patch type: bogus in map: map[$patch:bogus name:app]");
                });
        assertThatThrownBy(() -> await(deployments.patch("d", PatchType.STRATEGIC_MERGE,
                spec("\"containers\":[{\"image\":\"x:1\"}]"))))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(500);
                    assertThat(message(e)).isEqualTo("map: map[image:x:1] does not contain declared merge key: name");
                });
    }

    @Test
    void aCustomResourceRefusesAStrategicMergePatchWith415() {
        String ns = namespace("smp-widgets");
        ResourceClient<DynamicObject> widgets = admin().resource(backend().widgets()).inNamespace(ns);
        await(widgets.create(new DynamicObject("testenv.reactiveinformer.io/v1", "Widget", new V1ObjectMeta().name("w"))));

        assertThatThrownBy(() -> await(widgets.patch("w", PatchType.STRATEGIC_MERGE, "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}")))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(415);
                    assertThat(e.reason()).isEqualTo("UnsupportedMediaType");
                    assertThat(message(e)).isEqualTo("the body of the request was in an unknown format - accepted media "
                            + "types include: application/json-patch+json, application/merge-patch+json, "
                            + "application/apply-patch+yaml");
                });
    }

    /** Deployment {@code d} (containers app and two, an emptyDir volume, finalizer e2e.io/b) patched with {@code patch}. */
    private V1Deployment patch(String patch) {
        return await(deployments(namespace("smp")).patch("d", PatchType.STRATEGIC_MERGE, patch));
    }

    /** A client of the namespace's deployments, with deployment {@code d} created. */
    private ResourceClient<V1Deployment> deployments(String namespace) {
        ResourceClient<V1Deployment> deployments = admin().resource(V1Deployment.class).inNamespace(namespace);
        Map<String, String> labels = Map.of("app", "d");
        await(deployments.create(new V1Deployment().apiVersion("apps/v1").kind("Deployment")
                .metadata(new V1ObjectMeta().name("d").finalizers(List.of("e2e.io/b")))
                .spec(new V1DeploymentSpec().selector(new V1LabelSelector().matchLabels(labels))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                                .spec(new V1PodSpec()
                                        .containers(List.of(
                                                new V1Container().name("app").image("a:1").args(List.of("1", "2"))
                                                        .env(List.of(new V1EnvVar().name("A").value("1"),
                                                                new V1EnvVar().name("B").value("2"))),
                                                new V1Container().name("two").image("t:1")))
                                        .volumes(List.of(new V1Volume().name("v")
                                                .emptyDir(new V1EmptyDirVolumeSource()))))))));
        return deployments;
    }

    private static String spec(String fields) {
        return "{\"spec\":{\"template\":{\"spec\":{" + fields + "}}}}";
    }

    private static List<String> containers(V1Deployment deployment) {
        return deployment.getSpec().getTemplate().getSpec().getContainers().stream()
                .map(c -> c.getName() + " " + c.getImage()).toList();
    }

    private static String message(KubernetesApiException e) {
        return e.status().orElseThrow().getMessage();
    }
}
