package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.RawRequest;
import io.reactiveinformer.client.RawResponse;
import tools.jackson.databind.JsonNode;

/**
 * Discovery, {@code /version}, health endpoints, and 415 for what a resource cannot decode. (Protobuf
 * is left out: the real server decodes it for built-in kinds, where the simulated one answers 415,
 * and resets the stream for custom resources.)
 */
abstract class DiscoveryContract extends ClientContract {

    DiscoveryContract(Backend backend) {
        super(backend);
    }

    @Test
    void versionAndHealthEndpoints() {
        JsonNode version = get("/version");

        assertThat(version.path("major").asString()).isEqualTo("1");
        assertThat(version.path("minor").asString()).isEqualTo("36");
        assertThat(version.path("gitVersion").asString()).startsWith("v1.36.");
        for (String path : List.of("/healthz", "/livez", "/readyz")) {
            RawResponse health = await(admin().raw(RawRequest.get(path).withTimeout(Duration.ofSeconds(10))));
            assertThat(health.code()).isEqualTo(200);
            assertThat(health.text()).isEqualTo("ok");
            assertThat(health.contentType()).startsWith("text/plain");
        }
    }

    @Test
    void discoveryListsGroupsVersionsAndResources() {
        JsonNode core = get("/api");
        JsonNode groups = get("/apis");
        JsonNode apps = get("/apis/apps");
        JsonNode v1 = get("/api/v1");
        JsonNode appsV1 = get("/apis/apps/v1");

        assertThat(core.path("kind").asString()).isEqualTo("APIVersions");
        assertThat(strings(core.path("versions"))).containsExactly("v1");
        assertThat(groups.path("kind").asString()).isEqualTo("APIGroupList");
        assertThat(find(groups.path("groups"), "name", "apps").path("preferredVersion").path("groupVersion").asString())
                .isEqualTo("apps/v1");
        assertThat(apps.path("kind").asString()).isEqualTo("APIGroup");
        assertThat(apps.path("name").asString()).isEqualTo("apps");
        assertThat(v1.path("kind").asString()).isEqualTo("APIResourceList");
        assertThat(v1.path("groupVersion").asString()).isEqualTo("v1");
        JsonNode configMaps = find(v1.path("resources"), "name", "configmaps");
        assertThat(configMaps.path("kind").asString()).isEqualTo("ConfigMap");
        assertThat(configMaps.path("namespaced").asBoolean()).isTrue();
        assertThat(configMaps.path("singularName").asString()).isEqualTo("configmap");
        assertThat(strings(configMaps.path("shortNames"))).containsExactly("cm");
        assertThat(strings(configMaps.path("verbs"))).containsExactly("create", "delete", "deletecollection", "get",
                "list", "patch", "update", "watch");
        JsonNode namespaces = find(v1.path("resources"), "name", "namespaces");
        assertThat(namespaces.path("namespaced").asBoolean()).isFalse();
        assertThat(strings(namespaces.path("verbs"))).doesNotContain("deletecollection");
        assertThat(strings(find(v1.path("resources"), "name", "pods/status").path("verbs")))
                .containsExactly("get", "patch", "update");
        assertThat(strings(find(appsV1.path("resources"), "name", "deployments").path("shortNames")))
                .containsExactly("deploy");
        JsonNode events = find(get("/apis/events.k8s.io/v1").path("resources"), "name", "events");
        assertThat(events.path("kind").asString()).isEqualTo("Event");
        assertThat(events.path("namespaced").asBoolean()).isTrue();
        assertThat(strings(events.path("shortNames"))).containsExactly("ev");
        assertThat(strings(events.path("verbs"))).containsExactly("create", "delete", "deletecollection", "get",
                "list", "patch", "update", "watch");
        assertThatThrownBy(() -> get("/apis/nope.example.com/v1"))
                .isInstanceOf(KubernetesApiException.NotFound.class);
    }

    @Test
    void cborBodiesAndStrategicMergePatchesOfCustomResourcesAre415() {
        String ns = namespace("media-types");
        String widgets = "/apis/" + backend().widgets().group() + "/v1/namespaces/" + ns + "/widgets";
        await(admin().resource(backend().widgets()).inNamespace(ns).create(
                new io.reactiveinformer.api.DynamicObject("testenv.reactiveinformer.io/v1", "Widget",
                        new io.kubernetes.client.openapi.models.V1ObjectMeta().name("w"))));

        for (String path : List.of(widgets, "/api/v1/namespaces/" + ns + "/configmaps")) {
            assertThatThrownBy(() -> await(admin().raw(RawRequest.of("POST", path, "application/cbor",
                    new byte[] {(byte) 0xa0}))))
                    .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                        assertThat(e.code()).isEqualTo(415);
                        assertThat(e.reason()).isEqualTo("UnsupportedMediaType");
                    });
        }
        assertThatThrownBy(() -> await(admin().resource(backend().widgets()).inNamespace(ns)
                .patch("w", PatchType.STRATEGIC_MERGE, "{\"spec\":{\"size\":1}}")))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(415);
                    assertThat(e.reason()).isEqualTo("UnsupportedMediaType");
                });
        assertThatThrownBy(() -> await(admin().raw(RawRequest.of("DELETE", "/api/v1/namespaces", null, null))))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.code()).isEqualTo(405));
    }

    private JsonNode get(String path) {
        return admin().json().mapper().readTree(new String(await(admin().raw(RawRequest.get(path))).body(),
                StandardCharsets.UTF_8));
    }

    private static JsonNode find(JsonNode array, String field, String value) {
        for (JsonNode item : array) {
            if (item.path(field).asString("").equals(value)) {
                return item;
            }
        }
        throw new AssertionError("no " + field + "=" + value + " in " + array);
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString()));
        return out;
    }
}
