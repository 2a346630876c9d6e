package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.openapi.models.V1StatusCause;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.RawRequest;
import io.reactiveinformer.client.ResourceClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Server-side apply and field ownership: what each manager owns ({@code metadata.managedFields}, compared
 * without their times), conflicts and their Status, forced applies, fields a manager stops applying, lists
 * merged by their keys across managers, and the Update entries of every other write.
 */
abstract class ApplyContract extends ClientContract {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    ApplyContract(Backend backend) {
        super(backend);
    }

    @Test
    void fieldsAManagerNoLongerAppliesAreRemoved() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("apply-remove"));
        await(maps.apply(configMap("c", Map.of("a", "1", "b", "2"), Map.of("x", "1", "y", "2")), "e2e-owner", false));

        V1ConfigMap reapplied = await(maps.apply(configMap("c", Map.of("a", "1"), Map.of("x", "1")), "e2e-owner", false));

        assertThat(reapplied.getData()).isEqualTo(Map.of("a", "1"));
        assertThat(reapplied.getMetadata().getLabels()).isEqualTo(Map.of("x", "1"));
    }

    @Test
    void fieldsSomeoneElseSetOrChangedStay() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("apply-keep"));
        await(maps.apply(configMap("c", Map.of("a", "1", "b", "2")), "e2e-owner", false));
        await(maps.patch("c", PatchType.MERGE, "{\"data\":{\"b\":\"changed\",\"c\":\"3\"}}"));

        V1ConfigMap reapplied = await(maps.apply(configMap("c", Map.of("a", "1")), "e2e-owner", false));

        assertThat(reapplied.getData()).isEqualTo(Map.of("a", "1", "b", "changed", "c", "3"));
    }

    @Test
    void anApplyWithoutAFieldManagerIsInvalid() {
        String ns = namespace("apply-manager");
        byte[] body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}"
                .getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> await(admin().raw(RawRequest.of("PATCH", "/api/v1/namespaces/" + ns + "/configmaps/c",
                PatchType.APPLY.contentType(), body))))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).contains("fieldManager: Required value: is required for apply patch");
                });
    }

    @Test
    void theApplierOwnsItsConfigurationAndAMergePatchTakesWhatItChanges() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("apply-owners"));
        V1ConfigMap applied = await(maps.apply(configMap("c", Map.of("x", "1", "y", "2"), Map.of("l", "1")), "owner",
                false));
        assertThat(owners(applied)).isEqualTo(Map.of("owner/Apply/v1", json("""
                {"f:data":{"f:x":{},"f:y":{}},"f:metadata":{"f:labels":{"f:l":{}}}}""")));

        V1ConfigMap patched = await(maps.patch("c", PatchType.MERGE, "{\"data\":{\"y\":\"3\",\"z\":\"4\"}}"));

        assertThat(owners(patched)).as("without fieldManager, the User-Agent's product names the manager")
                .isEqualTo(Map.of(
                        "owner/Apply/v1", json("{\"f:data\":{\"f:x\":{}},\"f:metadata\":{\"f:labels\":{\"f:l\":{}}}}"),
                        "reactive-informer/Update/v1", json("{\"f:data\":{\"f:y\":{},\"f:z\":{}}}")));
        assertThat(patched.getMetadata().getManagedFields()).extracting(V1ManagedFieldsEntry::getOperation)
                .containsExactly("Apply", "Update");
    }

    @Test
    void aCreateOwnsWhatItSetItemsIncluded() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("apply-create"));

        V1ConfigMap created = await(maps.create(configMap("c", Map.of("x", "1"), Map.of("l", "1"))));

        assertThat(owners(created)).isEqualTo(Map.of("reactive-informer/Update/v1", json("""
                {"f:data":{".":{},"f:x":{}},"f:metadata":{"f:labels":{".":{},"f:l":{}}}}""")));
    }

    @Test
    void applyingAnotherValueToFieldsAnotherManagerOwnsIsAConflictNamingEachField() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("apply-conflict"));
        await(maps.apply(configMap("c", Map.of("x", "1", "y", "2", "z", "3")), "owner", false));

        assertThatThrownBy(() -> await(maps.apply(configMap("c", Map.of("x", "9", "y", "9", "z", "3")), "other", false)))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(409);
                    V1Status status = e.status().orElseThrow();
                    assertThat(status.getReason()).isEqualTo("Conflict");
                    assertThat(status.getMessage())
                            .isEqualTo("Apply failed with 2 conflicts: conflicts with \"owner\":\n- .data.x\n- .data.y");
                    assertThat(status.getDetails().getCauses()).extracting(V1StatusCause::getReason,
                            V1StatusCause::getMessage, V1StatusCause::getField).containsExactly(
                            org.assertj.core.groups.Tuple.tuple("FieldManagerConflict", "conflict with \"owner\"", ".data.x"),
                            org.assertj.core.groups.Tuple.tuple("FieldManagerConflict", "conflict with \"owner\"", ".data.y"));
                });
        await(maps.patch("c", PatchType.MERGE, "{\"data\":{\"w\":\"0\"}}"));
        assertThatThrownBy(() -> await(maps.apply(configMap("c", Map.of("w", "1")), "other", false)))
                .hasMessageContaining("Apply failed with 1 conflict: conflict with \"reactive-informer\" using v1: .data.w");
        assertThat(await(maps.get("c")).getData()).isEqualTo(Map.of("w", "0", "x", "1", "y", "2", "z", "3"));
    }

    @Test
    void theSameValueIsSharedAndAForcedApplyTakesTheField() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("apply-force"));
        await(maps.apply(configMap("c", Map.of("x", "1", "y", "2")), "owner", false));

        V1ConfigMap shared = await(maps.apply(configMap("c", Map.of("y", "2")), "other", false));
        assertThat(owners(shared)).isEqualTo(Map.of("owner/Apply/v1", json("{\"f:data\":{\"f:x\":{},\"f:y\":{}}}"),
                "other/Apply/v1", json("{\"f:data\":{\"f:y\":{}}}")));

        V1ConfigMap forced = await(maps.apply(configMap("c", Map.of("x", "9", "y", "2")), "other", true));

        assertThat(forced.getData()).isEqualTo(Map.of("x", "9", "y", "2"));
        assertThat(owners(forced)).isEqualTo(Map.of("owner/Apply/v1", json("{\"f:data\":{\"f:y\":{}}}"),
                "other/Apply/v1", json("{\"f:data\":{\"f:x\":{},\"f:y\":{}}}")));
    }

    @Test
    void aFieldOnlyTheApplierOwnedGoesAndOneAnotherManagerAlsoOwnsStays() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("apply-prune"));
        await(maps.apply(configMap("c", Map.of("x", "1", "y", "2", "z", "3")), "owner", false));
        await(maps.apply(configMap("c", Map.of("y", "2")), "other", false));

        V1ConfigMap reapplied = await(maps.apply(configMap("c", Map.of("x", "1")), "owner", false));

        assertThat(reapplied.getData()).isEqualTo(Map.of("x", "1", "y", "2"));
        assertThat(owners(reapplied)).isEqualTo(Map.of("owner/Apply/v1", json("{\"f:data\":{\"f:x\":{}}}"),
                "other/Apply/v1", json("{\"f:data\":{\"f:y\":{}}}")));
    }

    @Test
    void aDeploymentsContainersMergeByNameAcrossManagers() {
        ResourceClient<V1Deployment> deployments = admin().resource(V1Deployment.class)
                .inNamespace(namespace("apply-containers"));
        await(deployments.apply(deployment(new V1Container().name("app").image("app:1")
                .env(List.of(new V1EnvVar().name("A").value("1")))
                .ports(List.of(new V1ContainerPort().containerPort(80)))), "owner", false));

        V1Deployment merged = await(deployments.apply(deployment(
                new V1Container().name("app").env(List.of(new V1EnvVar().name("B").value("2"))),
                new V1Container().name("sidecar").image("side:1")), "other", false));

        List<V1Container> containers = merged.getSpec().getTemplate().getSpec().getContainers();
        assertThat(containers).extracting(V1Container::getName).containsExactly("app", "sidecar");
        assertThat(containers.get(0).getImage()).isEqualTo("app:1");
        assertThat(containers.get(0).getEnv()).extracting(V1EnvVar::getName).containsExactly("A", "B");
        String template = "{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},\"f:spec\":{\"f:containers\":{%s}}}";
        String selector = "\"f:selector\":{}";
        assertThat(owners(merged)).isEqualTo(Map.of(
                "owner/Apply/apps/v1", json("{\"f:spec\":{" + selector + ",\"f:template\":" + template.formatted("""
                        "k:{\\"name\\":\\"app\\"}":{".":{},"f:name":{},"f:image":{},
                          "f:env":{"k:{\\"name\\":\\"A\\"}":{".":{},"f:name":{},"f:value":{}}},
                          "f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}""")
                        + "}}"),
                "other/Apply/apps/v1", json("{\"f:spec\":{" + selector + ",\"f:template\":" + template.formatted("""
                        "k:{\\"name\\":\\"app\\"}":{".":{},"f:name":{},
                          "f:env":{"k:{\\"name\\":\\"B\\"}":{".":{},"f:name":{},"f:value":{}}}},
                        "k:{\\"name\\":\\"sidecar\\"}":{".":{},"f:name":{},"f:image":{}}""") + "}}")));
    }

    @Test
    void aStatusWriteIsAnUpdateOfTheStatusSubresource() {
        ResourceClient<V1Deployment> deployments = admin().resource(V1Deployment.class)
                .inNamespace(namespace("apply-status"));
        await(deployments.apply(deployment(new V1Container().name("app").image("app:1")), "owner", false));

        V1Deployment patched = await(deployments.patchStatus("d", PatchType.MERGE, "{\"status\":{\"replicas\":3}}"));

        assertThat(patched.getMetadata().getManagedFields()).extracting(V1ManagedFieldsEntry::getManager,
                V1ManagedFieldsEntry::getOperation, V1ManagedFieldsEntry::getSubresource).containsExactly(
                org.assertj.core.groups.Tuple.tuple("owner", "Apply", null),
                org.assertj.core.groups.Tuple.tuple("reactive-informer", "Update", "status"));
        assertThat(owners(patched)).containsEntry("reactive-informer/Update/apps/v1",
                json("{\"f:status\":{\"f:replicas\":{}}}"));
    }

    @Test
    void anApplyOfTheStatusSubresourceOwnsOnlyTheStatusFieldsItSets() {
        ResourceClient<V1Deployment> deployments = admin().resource(V1Deployment.class)
                .inNamespace(namespace("apply-status-owner"));
        await(deployments.apply(deployment(new V1Container().name("app").image("app:1")), "owner", false));
        V1Deployment status = new V1Deployment().apiVersion("apps/v1").kind("Deployment")
                .metadata(new V1ObjectMeta().name("d")).status(new V1DeploymentStatus().replicas(3).observedGeneration(1L));

        V1Deployment applied = await(deployments.applyStatus(status, "controller", true));

        assertThat(applied.getStatus().getReplicas()).isEqualTo(3);
        assertThat(applied.getSpec().getTemplate().getSpec().getContainers()).extracting(V1Container::getImage)
                .containsExactly("app:1");
        assertThat(applied.getMetadata().getManagedFields()).extracting(V1ManagedFieldsEntry::getManager,
                V1ManagedFieldsEntry::getOperation, V1ManagedFieldsEntry::getSubresource).containsExactly(
                org.assertj.core.groups.Tuple.tuple("controller", "Apply", "status"),
                org.assertj.core.groups.Tuple.tuple("owner", "Apply", null));
        assertThat(owners(applied)).containsEntry("controller/Apply/apps/v1",
                json("{\"f:status\":{\"f:observedGeneration\":{},\"f:replicas\":{}}}"));

        status.getStatus().setReplicas(null);
        V1Deployment fewer = await(deployments.applyStatus(status, "controller", true));
        assertThat(fewer.getStatus().getReplicas()).as("no longer applied, owned by no one else").isNull();
        assertThat(fewer.getStatus().getObservedGeneration()).isEqualTo(1);
    }

    private static V1Deployment deployment(V1Container... containers) {
        return new V1Deployment().apiVersion("apps/v1").kind("Deployment").metadata(new V1ObjectMeta().name("d"))
                .spec(new V1DeploymentSpec().selector(new V1LabelSelector().matchLabels(Map.of("app", "d")))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(Map.of("app", "d")))
                                .spec(new V1PodSpec().containers(List.of(containers)))));
    }

    /** Each managedFields entry's {@code fieldsV1} by {@code manager/operation/apiVersion} (times left out). */
    private static Map<String, JsonNode> owners(KubernetesObject object) {
        Map<String, JsonNode> out = new TreeMap<>();
        for (V1ManagedFieldsEntry e : object.getMetadata().getManagedFields()) {
            assertThat(e.getFieldsType()).isEqualTo("FieldsV1");
            out.put(e.getManager() + "/" + e.getOperation() + "/" + e.getApiVersion(), JSON.valueToTree(e.getFieldsV1()));
        }
        return out;
    }

    private static JsonNode json(String text) {
        return JSON.readTree(text);
    }
}
