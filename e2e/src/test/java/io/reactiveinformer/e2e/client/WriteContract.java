package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.RawRequest;
import io.reactiveinformer.client.ResourceClient;
import tools.jackson.databind.JsonNode;

/** Create, get, replace, the three patch formats, server-side apply, the status subresource, delete. */
abstract class WriteContract extends ClientContract {

    WriteContract(Backend backend) {
        super(backend);
    }

    @Test
    void createGetReplaceAndDelete() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("crud"));

        V1ConfigMap created = await(maps.create(configMap("c", Map.of("a", "1"))));
        V1ConfigMap read = await(maps.get("c"));
        V1ConfigMap replaced = await(maps.replace(read.data(Map.of("a", "2", "b", "3"))));
        V1ConfigMap reread = await(maps.get("c"));
        await(maps.delete("c"));

        assertThat(created.getMetadata().getNamespace()).isEqualTo(maps.namespace());
        assertThat(created.getMetadata().getUid()).isNotEmpty();
        assertThat(created.getMetadata().getCreationTimestamp()).isNotNull();
        assertThat(created.getData()).isEqualTo(Map.of("a", "1"));
        assertThat(read.getMetadata().getResourceVersion()).isEqualTo(created.getMetadata().getResourceVersion());
        assertThat(rv(replaced.getMetadata().getResourceVersion()))
                .isGreaterThan(rv(created.getMetadata().getResourceVersion()));
        assertThat(replaced.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
        assertThat(reread.getData()).isEqualTo(Map.of("a", "2", "b", "3"));
        assertThat(reread.getMetadata().getResourceVersion()).isEqualTo(replaced.getMetadata().getResourceVersion());
        assertThatThrownBy(() -> await(maps.get("c"))).isInstanceOf(KubernetesApiException.NotFound.class);
    }

    @Test
    void mergePatchAddsReplacesAndRemovesKeys() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("merge"));
        V1ConfigMap created = await(maps.create(configMap("m", Map.of("keep", "1", "drop", "2", "change", "3"))));

        V1ConfigMap patched = await(maps.patch("m", PatchType.MERGE,
                "{\"metadata\":{\"labels\":{\"l\":\"v\"}},\"data\":{\"drop\":null,\"change\":\"three\",\"new\":\"4\"}}"));

        assertThat(patched.getData()).isEqualTo(Map.of("keep", "1", "change", "three", "new", "4"));
        assertThat(patched.getMetadata().getLabels()).isEqualTo(Map.of("l", "v"));
        assertThat(rv(patched.getMetadata().getResourceVersion()))
                .isGreaterThan(rv(created.getMetadata().getResourceVersion()));
    }

    @Test
    void strategicMergePatchMergesMaps() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("smp"));
        await(maps.create(configMap("s", Map.of("a", "1", "b", "2"), Map.of("x", "1"))));

        V1ConfigMap patched = await(maps.patch("s", PatchType.STRATEGIC_MERGE,
                "{\"metadata\":{\"labels\":{\"y\":\"2\"}},\"data\":{\"b\":null,\"c\":\"3\"}}"));

        assertThat(patched.getData()).isEqualTo(Map.of("a", "1", "c", "3"));
        assertThat(patched.getMetadata().getLabels()).isEqualTo(Map.of("x", "1", "y", "2"));
    }

    @Test
    void jsonPatchAppliesOperationsInOrderAndAFailedTestChangesNothing() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("jsonpatch"));
        await(maps.create(configMap("j", Map.of("a", "1", "b", "2"))));

        V1ConfigMap patched = await(maps.patch("j", PatchType.JSON_PATCH, """
                [{"op":"test","path":"/data/a","value":"1"},
                 {"op":"replace","path":"/data/a","value":"one"},
                 {"op":"remove","path":"/data/b"},
                 {"op":"add","path":"/data/c","value":"3"},
                 {"op":"copy","from":"/data/c","path":"/data/d"}]"""));

        assertThat(patched.getData()).isEqualTo(Map.of("a", "one", "c", "3", "d", "3"));
        assertThatThrownBy(() -> await(maps.patch("j", PatchType.JSON_PATCH,
                "[{\"op\":\"replace\",\"path\":\"/data/c\",\"value\":\"x\"},{\"op\":\"test\",\"path\":\"/data/a\",\"value\":\"1\"}]")))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.code()).isEqualTo(422));
        assertThat(await(maps.get("j")).getMetadata().getResourceVersion())
                .isEqualTo(patched.getMetadata().getResourceVersion());
    }

    @Test
    void serverSideApplyCreatesUpdatesAndIsIdempotent() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("apply"));

        V1ConfigMap created = await(maps.apply(configMap("a", Map.of("k", "1"), Map.of("app", "e2e")), "e2e-test", false));
        V1ConfigMap updated = await(maps.apply(configMap("a", Map.of("k", "2"), Map.of("app", "e2e")), "e2e-test", false));
        V1ConfigMap again = await(maps.apply(configMap("a", Map.of("k", "2"), Map.of("app", "e2e")), "e2e-test", false));

        assertThat(created.getData()).isEqualTo(Map.of("k", "1"));
        assertThat(created.getMetadata().getLabels()).isEqualTo(Map.of("app", "e2e"));
        assertThat(updated.getData()).isEqualTo(Map.of("k", "2"));
        assertThat(updated.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
        assertThat(rv(updated.getMetadata().getResourceVersion()))
                .isGreaterThan(rv(created.getMetadata().getResourceVersion()));
        assertThat(again.getMetadata().getResourceVersion()).as("applying the same intent writes nothing")
                .isEqualTo(updated.getMetadata().getResourceVersion());
    }

    @Test
    void statusSubresourceChangesOnlyTheStatusAndTheMainResourceOnlyTheRest() {
        ResourceClient<V1Deployment> deployments = admin().resource(V1Deployment.class).inNamespace(namespace("status"));
        V1Deployment created = await(deployments.create(deployment("d", 1)));

        V1Deployment statusPatched = await(deployments.patchStatus("d", PatchType.MERGE,
                "{\"spec\":{\"replicas\":7},\"status\":{\"observedGeneration\":1,\"collisionCount\":2}}"));
        V1Deployment toReplace = await(deployments.get("d"));
        V1Deployment specReplaced = await(deployments.replace(toReplace
                .spec(toReplace.getSpec().replicas(3))
                .status(new V1DeploymentStatus().observedGeneration(9L).collisionCount(9))));
        V1Deployment toReplaceStatus = await(deployments.get("d"));
        V1Deployment statusReplaced = await(deployments.replaceStatus(toReplaceStatus
                .spec(toReplaceStatus.getSpec().replicas(5))
                .status(toReplaceStatus.getStatus().collisionCount(4))));

        assertThat(created.getMetadata().getGeneration()).isEqualTo(1L);
        assertThat(statusPatched.getSpec().getReplicas()).as("spec through status").isEqualTo(1);
        assertThat(statusPatched.getStatus().getCollisionCount()).isEqualTo(2);
        assertThat(statusPatched.getMetadata().getGeneration()).isEqualTo(1L);
        assertThat(specReplaced.getSpec().getReplicas()).isEqualTo(3);
        assertThat(specReplaced.getStatus().getCollisionCount()).as("status through the main resource").isEqualTo(2);
        assertThat(specReplaced.getMetadata().getGeneration()).isEqualTo(2L);
        assertThat(statusReplaced.getSpec().getReplicas()).isEqualTo(3);
        assertThat(statusReplaced.getStatus().getCollisionCount()).isEqualTo(4);
        assertThat(statusReplaced.getMetadata().getGeneration()).isEqualTo(2L);
    }

    static V1Deployment deployment(String name, int replicas) {
        Map<String, String> labels = Map.of("app", name);
        return new V1Deployment().apiVersion("apps/v1").kind("Deployment")
                .metadata(new V1ObjectMeta().name(name))
                .spec(new V1DeploymentSpec().replicas(replicas)
                        .selector(new V1LabelSelector().matchLabels(labels))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                                .spec(new V1PodSpec().containers(List.of(new V1Container().name("c").image("example/e2e:1"))))));
    }

    /**
     * Empty {@code labels} and {@code annotations} are left out of what the server writes (Go's
     * {@code omitempty}), whether sent empty or emptied by a patch: on GET, LIST and in watch events.
     * Read as raw bytes, since the models cannot tell an absent map from an empty one.
     */
    @Test
    void emptyLabelsAndAnnotationsAreLeftOut() {
        String ns = namespace("empty-maps");
        String path = "/api/v1/namespaces/" + ns + "/configmaps";
        String from = await(configMaps(ns).list(ListOptions.none())).resourceVersion();
        JsonNode created = send("POST", path, "application/json",
                "{\"metadata\":{\"name\":\"c\",\"labels\":{},\"annotations\":{}}}");
        send("PATCH", path + "/c", "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
        JsonNode unlabelled = send("PATCH", path + "/c", "application/merge-patch+json",
                "{\"metadata\":{\"labels\":{\"a\":null}}}");

        assertNoEmptyMaps(created);
        assertNoEmptyMaps(unlabelled);
        assertNoEmptyMaps(send("GET", path + "/c", null, null));
        assertNoEmptyMaps(send("GET", path, null, null).path("items").get(0));
        String[] events = new String(await(admin().raw(RawRequest.get(path + "?watch=true&resourceVersion=" + from
                + "&timeoutSeconds=1").withTimeout(Duration.ofSeconds(10)))).body(), StandardCharsets.UTF_8).split("\n");
        assertThat(events).hasSize(3);
        assertNoEmptyMaps(admin().json().mapper().readTree(events[0]).path("object"));
        assertNoEmptyMaps(admin().json().mapper().readTree(events[2]).path("object"));
    }

    /** {@code /status} of a kind without the status subresource is no path at all: 404 to every verb. */
    @Test
    void theStatusOfAKindWithoutTheSubresourceIsNotFound() {
        String ns = namespace("no-status");
        await(configMaps(ns).create(configMap("c", Map.of("a", "1"))));
        String status = "/api/v1/namespaces/" + ns + "/configmaps/c/status";

        for (String[] request : List.of(new String[] {"GET", null, null},
                new String[] {"PATCH", "application/merge-patch+json", "{\"data\":{\"a\":\"2\"}}"},
                new String[] {"PUT", "application/json", "{\"metadata\":{\"name\":\"c\"},\"data\":{\"a\":\"2\"}}"})) {
            assertThatThrownBy(() -> send(request[0], status, request[1], request[2])).as(request[0])
                    .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                        assertThat(e.code()).isEqualTo(404);
                        assertThat(e.getMessage()).contains("the server could not find the requested resource");
                    });
        }
        assertThat(await(configMaps(ns).get("c")).getData()).containsEntry("a", "1");
    }

    private JsonNode send(String method, String path, String contentType, String body) {
        return admin().json().mapper().readTree(await(admin().raw(body == null ? RawRequest.get(path)
                : RawRequest.of(method, path, contentType, body.getBytes(StandardCharsets.UTF_8)))).body());
    }

    private static void assertNoEmptyMaps(JsonNode object) {
        assertThat(object.path("metadata").path("name").asString()).isEqualTo("c");
        assertThat(object.path("metadata").has("labels")).as("labels in %s", object).isFalse();
        assertThat(object.path("metadata").has("annotations")).as("annotations in %s", object).isFalse();
    }
}
