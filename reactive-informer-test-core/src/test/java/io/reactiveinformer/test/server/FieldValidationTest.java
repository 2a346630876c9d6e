package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code fieldValidation} over HTTP; the texts are kube-apiserver v1.36's for the same requests. */
class FieldValidationTest {

    private static final String GADGETS = "/apis/testenv.reactiveinformer.io/v1/namespaces/ns/gadgets";
    private static final String CONFIGMAPS = "/api/v1/namespaces/ns/configmaps";
    private static final String GADGET = "{\"apiVersion\":\"testenv.reactiveinformer.io/v1\",\"kind\":\"Gadget\","
            + "\"metadata\":{\"name\":\"g\",\"foo\":1},\"spec\":{\"size\":1,\"y\":1,\"x\":1},\"top\":1}";

    private final SimulatedApiServer server = SimulatedApiServer.start(ClusterState.builder()
            .customResource(CustomResourceDefinitionTest.GADGETS).build());
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void strictRefusesACreateOrUpdateWithUnknownFields() throws Exception {
        HttpResponse<String> refused = send("POST", GADGETS + "?fieldValidation=Strict", "application/json", GADGET);
        HttpResponse<String> builtIn = send("POST", CONFIGMAPS + "?fieldValidation=Strict", "application/json",
                "{\"metadata\":{\"name\":\"c\",\"foo\":1},\"data\":{\"a\":\"b\"},\"spec\":{\"x\":1},\"zz\":1,\"aa\":2}");

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(message(refused)).isEqualTo("Gadget in version \"v1\" cannot be handled as a Gadget: strict decoding "
                + "error: unknown field \"metadata.foo\", unknown field \"spec.x\", unknown field \"spec.y\", unknown "
                + "field \"top\"");
        assertThat(message(builtIn)).isEqualTo("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict "
                + "decoding error: unknown field \"metadata.foo\", unknown field \"spec\", unknown field \"zz\", unknown "
                + "field \"aa\"");
        assertThat(send("GET", GADGETS + "/g", null, null).statusCode()).isEqualTo(404);
    }

    @Test
    void warnIsTheDefaultAndWarnsOncePerDroppedField() throws Exception {
        HttpResponse<String> created = send("POST", GADGETS, "application/json", GADGET);
        HttpResponse<String> warned = send("PATCH", GADGETS + "/g?fieldValidation=Warn", "application/json-patch+json",
                "[{\"op\":\"add\",\"path\":\"/spec/q\",\"value\":{\"r\":1}},{\"op\":\"add\",\"path\":\"/spec/tags\","
                        + "\"value\":[\"a\"]},{\"op\":\"add\",\"path\":\"/spec/template\",\"value\":{\"apiVersion\":\"v1\","
                        + "\"kind\":\"Pod\",\"metadata\":{\"bogus\":1}}}]");

        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.headers().allValues("Warning")).containsExactly("299 - \"unknown field \\\"metadata.foo\\\"\"",
                "299 - \"unknown field \\\"spec.x\\\"\"", "299 - \"unknown field \\\"spec.y\\\"\"",
                "299 - \"unknown field \\\"top\\\"\"");
        assertThat(JsonMapper.shared().readTree(created.body()).path("spec")).isEqualTo(json("{\"size\":1}"));
        assertThat(warned.statusCode()).isEqualTo(200);
        assertThat(warned.headers().allValues("Warning")).containsExactly("299 - \"unknown field \\\"spec.q\\\"\"",
                "299 - \"unknown field \\\"spec.template.metadata.bogus\\\"\"");
    }

    @Test
    void ignoreIsSilent() throws Exception {
        HttpResponse<String> created = send("POST", GADGETS + "?fieldValidation=Ignore", "application/json", GADGET);
        HttpResponse<String> replaced = send("PUT", CONFIGMAPS + "/c?fieldValidation=Ignore", "application/json",
                "{\"metadata\":{\"name\":\"c\"},\"zz\":1}");

        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.headers().allValues("Warning")).isEmpty();
        assertThat(replaced.statusCode()).as("no such ConfigMap").isEqualTo(404);
        assertThat(replaced.headers().allValues("Warning")).isEmpty();
    }

    @Test
    void aStrictPatchIsInvalidAndAnApplyCannotBeTyped() throws Exception {
        send("POST", GADGETS, "application/json", GADGET);
        HttpResponse<String> merge = send("PATCH", GADGETS + "/g?fieldValidation=Strict", "application/merge-patch+json",
                "{\"spec\":{\"x\":1,\"size\":2}}");
        HttpResponse<String> missing = send("PATCH", GADGETS + "/none?fieldValidation=Strict",
                "application/merge-patch+json", "{\"spec\":{\"x\":1}}");
        HttpResponse<String> apply = send("PATCH", GADGETS + "/g?fieldManager=m&fieldValidation=Ignore",
                "application/apply-patch+yaml", "{\"apiVersion\":\"testenv.reactiveinformer.io/v1\",\"kind\":\"Gadget\","
                        + "\"metadata\":{\"name\":\"g\"},\"spec\":{\"size\":4,\"x\":1}}");

        assertThat(merge.statusCode()).isEqualTo(422);
        assertThat(message(merge)).startsWith(" \"\" is invalid: patch: Invalid value: \"")
                .endsWith("\": strict decoding error: unknown field \"spec.x\"");
        assertThat(JsonMapper.shared().readTree(merge.body()).path("details").path("causes").path(0).path("field")
                .asString()).isEqualTo("patch");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(apply.statusCode()).isEqualTo(500);
        assertThat(message(apply)).isEqualTo("failed to create typed patch object (/g; testenv.reactiveinformer.io/v1, "
                + "Kind=Gadget): .spec.x: field not declared in schema");
        assertThat(JsonMapper.shared().readTree(send("GET", GADGETS + "/g", null, null).body()).path("spec"))
                .isEqualTo(json("{\"size\":1}"));
    }

    @Test
    void fieldsNamedTwiceComeFirstAndTheLastValueCounts() throws Exception {
        HttpResponse<String> refused = send("POST", GADGETS + "?fieldValidation=Strict", "application/json", """
                {"apiVersion":"testenv.reactiveinformer.io/v1","kind":"Gadget","metadata":{"name":"d"},
                 "spec":{"size":1,"x":1,"size":2,"tags":["a",{"k":1,"k":2}],"labels":{"q":"1","q":"2"}},
                 "spec":{"size":3,"y":1}}""");
        HttpResponse<String> warned = send("POST", GADGETS, "application/json", """
                {"apiVersion":"testenv.reactiveinformer.io/v1","kind":"Gadget","metadata":{"name":"d"},
                 "spec":{"size":1,"size":2,"color":"red","x":1},"spec":{"size":3,"z":1}}""");

        assertThat(message(refused)).isEqualTo("Gadget in version \"v1\" cannot be handled as a Gadget: strict decoding "
                + "error: duplicate field \"spec.size\", duplicate field \"spec.tags[1].k\", duplicate field "
                + "\"spec.labels.q\", duplicate field \"spec\", unknown field \"spec.y\"");
        assertThat(warned.headers().allValues("Warning")).containsExactly("299 - \"duplicate field \\\"spec.size\\\"\"",
                "299 - \"duplicate field \\\"spec\\\"\"", "299 - \"unknown field \\\"spec.z\\\"\"");
        assertThat(JsonMapper.shared().readTree(warned.body()).path("spec")).isEqualTo(json("{\"size\":3}"));
    }

    @Test
    void anUnknownModeIsInvalid() throws Exception {
        HttpResponse<String> refused = send("POST", GADGETS + "?fieldValidation=strict", "application/json", GADGET);

        assertThat(refused.statusCode()).isEqualTo(422);
        assertThat(message(refused)).isEqualTo("CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported "
                + "value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
    }

    private HttpResponse<String> send(String method, String path, String contentType, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String message(HttpResponse<String> response) {
        return JsonMapper.shared().readTree(response.body()).path("message").asString();
    }

    private static JsonNode json(String text) {
        return JsonMapper.shared().readTree(text);
    }
}
