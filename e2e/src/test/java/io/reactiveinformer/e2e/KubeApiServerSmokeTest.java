package io.reactiveinformer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;

import org.junit.jupiter.api.Test;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import tools.jackson.databind.JsonNode;

@KubeApiServerTest
class KubeApiServerSmokeTest {

    private final KubeApiServer env;
    private final ApiCalls admin;
    private final ApiCalls restricted;

    KubeApiServerSmokeTest(KubeApiServer env) {
        this.env = env;
        this.admin = new ApiCalls(env, env.admin());
        this.restricted = new ApiCalls(env, env.restricted());
    }

    @Test
    void readyzAnswersOkOnLoopback() {
        HttpResponse<String> readyz = admin.get("/readyz");

        assertThat(env.serverUrl().getHost()).isEqualTo("127.0.0.1");
        assertThat(readyz.statusCode()).isEqualTo(200);
        assertThat(readyz.body()).isEqualTo("ok");
    }

    @Test
    void serverReportsThePinnedVersion() {
        JsonNode version = ApiCalls.json(admin.get("/version"));

        assertThat(version.path("gitVersion").asString()).isEqualTo(env.kubernetesVersion());
        assertThat(env.kubernetesVersion()).matches("v1\\.(3[3-9]|[4-9][0-9])\\.\\d+");
    }

    @Test
    void runsTheApiServerWithoutTheRestOfAControlPlane() {
        assertThat(env.hasControlPlane()).isFalse();
        assertThat(ApiCalls.json(admin.get("/api/v1/nodes")).path("items").valueStream()).isEmpty();
    }

    @Test
    void kubeconfigHasAdminAndRestrictedContexts() throws Exception {
        String kubeconfig = Files.readString(env.kubeconfig());

        assertThat(kubeconfig)
                .contains("server: " + env.serverUrl())
                .contains("- name: admin", "- name: restricted", "current-context: admin")
                .contains("client-certificate-data: ", "client-key-data: ", "certificate-authority-data: ");
    }

    @Test
    void adminListsNamespaces() {
        HttpResponse<String> namespaces = admin.get("/api/v1/namespaces");

        assertThat(namespaces.statusCode()).isEqualTo(200);
        assertThat(ApiCalls.json(namespaces).path("items").valueStream()
                .map(ns -> ns.path("metadata").path("name").asString()))
                .contains("default", "kube-system");
    }

    @Test
    void adminCreatesReadsAndDeletesAConfigMap() {
        String ns = admin.createNamespace("smoke");
        String configMaps = "/api/v1/namespaces/" + ns + "/configmaps";

        HttpResponse<String> created = admin.call("POST", configMaps,
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"greeting\"},\"data\":{\"hello\":\"world\"}}");
        HttpResponse<String> read = admin.get(configMaps + "/greeting");
        HttpResponse<String> deleted = admin.call("DELETE", configMaps + "/greeting", null);
        HttpResponse<String> gone = admin.get(configMaps + "/greeting");

        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(ApiCalls.json(read).path("data").path("hello").asString()).isEqualTo("world");
        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(gone.statusCode()).isEqualTo(404);
    }

    @Test
    void restrictedIdentityIsAuthenticatedButForbidden() {
        String ns = admin.createNamespace("forbidden");

        HttpResponse<String> discovery = restricted.get("/api");
        HttpResponse<String> list = restricted.get("/api/v1/namespaces/" + ns + "/configmaps");
        HttpResponse<String> create = restricted.call("POST", "/api/v1/namespaces/" + ns + "/configmaps",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"nope\"}}");

        assertThat(discovery.statusCode()).isEqualTo(200);
        assertThat(list.statusCode()).isEqualTo(403);
        JsonNode status = ApiCalls.json(list);
        assertThat(status.path("kind").asString()).isEqualTo("Status");
        assertThat(status.path("reason").asString()).isEqualTo("Forbidden");
        assertThat(status.path("message").asString()).contains("testenv-restricted");
        assertThat(create.statusCode()).isEqualTo(403);
    }
}
