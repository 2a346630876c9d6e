package io.reactiveinformer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import tools.jackson.databind.JsonNode;

@KubeApiServerTest
class CustomResourceTest {

    private static final Path WIDGETS = Path.of("crds/widgets.yaml");

    @Test
    void installedCrdServesCustomObjectsWithAStatusSubresource(KubeApiServer env) {
        ApiCalls admin = new ApiCalls(env, env.admin());
        KubeApiServer.InstalledCrd crd = env.installCrd(WIDGETS);
        String ns = admin.createNamespace("crd");
        String widgets = crd.collectionPath(ns);

        HttpResponse<String> created = admin.call("POST", widgets, """
                {"apiVersion":"testenv.reactiveinformer.io/v1","kind":"Widget","metadata":{"name":"w1"},
                 "spec":{"size":3,"color":"blue"}}""");
        JsonNode widget = ApiCalls.json(created);
        String statusUpdate = """
                {"apiVersion":"testenv.reactiveinformer.io/v1","kind":"Widget",
                 "metadata":{"name":"w1","resourceVersion":"%s"},
                 "spec":{"size":99},"status":{"phase":"Ready","observedGeneration":1}}"""
                .formatted(widget.path("metadata").path("resourceVersion").asString());
        HttpResponse<String> updated = admin.call("PUT", widgets + "/w1/status", statusUpdate);
        JsonNode read = ApiCalls.json(admin.get(widgets + "/w1"));

        assertThat(crd).isEqualTo(new KubeApiServer.InstalledCrd("widgets.testenv.reactiveinformer.io",
                "testenv.reactiveinformer.io", "v1", "widgets", true));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(widget.path("spec").path("color").asString()).isEqualTo("blue");
        assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
        assertThat(read.path("status").path("phase").asString()).isEqualTo("Ready");
        // the status subresource ignores spec changes and leaves the generation alone
        assertThat(read.path("spec").path("size").asInt()).isEqualTo(3);
        assertThat(read.path("metadata").path("generation").asLong()).isEqualTo(1);
        assertThat(admin.call("DELETE", widgets + "/w1", null).statusCode()).isEqualTo(200);
        assertThat(admin.get(widgets + "/w1").statusCode()).isEqualTo(404);
    }

    @Test
    void installingAgainIsANoOp(KubeApiServer env) {
        KubeApiServer.InstalledCrd first = env.installCrd(WIDGETS);
        KubeApiServer.InstalledCrd second = env.installCrd(env.testenvDirectory().resolve(WIDGETS));

        assertThat(second).isEqualTo(first);
    }

    @Test
    void restrictedIdentityCannotListCustomObjects(KubeApiServer env) {
        KubeApiServer.InstalledCrd crd = env.installCrd(WIDGETS);

        assertThat(new ApiCalls(env, env.restricted()).get(crd.collectionPath("default")).statusCode())
                .isEqualTo(403);
    }
}
