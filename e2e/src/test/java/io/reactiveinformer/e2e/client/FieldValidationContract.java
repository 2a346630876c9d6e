package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.RawRequest;
import io.reactiveinformer.client.RawResponse;
import tools.jackson.databind.JsonNode;

/**
 * The {@code fieldValidation} parameter of writes, for a custom resource (by its definition's
 * schema) and a built-in kind (by its OpenAPI): {@code Strict} refuses unknown fields, {@code Warn}
 * (the default) drops them with one {@code Warning} header each, {@code Ignore} drops them silently;
 * an apply with one cannot be typed. Warnings are read off the responses by a client of the same
 * configuration whose Reactor Netty client records them.
 */
abstract class FieldValidationContract extends ClientContract {

    private static final String GADGET = "{\"apiVersion\":\"testenv.reactiveinformer.io/v1\",\"kind\":\"Gadget\","
            + "\"metadata\":{\"name\":\"g\",\"foo\":1},\"spec\":{\"size\":1,\"y\":1,\"x\":1},\"top\":1}";
    private static final String CONFIGMAP = "{\"metadata\":{\"name\":\"c\",\"foo\":1},\"data\":{\"a\":\"b\"},"
            + "\"spec\":{\"x\":1},\"zz\":1,\"aa\":2}";

    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final KubernetesClient recording = KubernetesClient.builder(admin().config()).json(admin().json())
            .httpClient(http -> http.doOnResponse((response, connection) ->
                    warnings.addAll(response.responseHeaders().getAll("Warning"))))
            .build();

    FieldValidationContract(Backend backend) {
        super(backend);
    }

    @AfterEach
    void closeRecordingClient() {
        recording.close();
    }

    @Test
    void strictRefusesUnknownFieldsOfACreate() {
        String ns = namespace("strict");

        assertThatThrownBy(() -> send("POST", gadgets(ns) + "?fieldValidation=Strict", GADGET))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(400);
                    assertThat(e.reason()).isEqualTo("BadRequest");
                    assertThat(e.status().orElseThrow().getMessage()).isEqualTo("Gadget in version \"v1\" cannot be "
                            + "handled as a Gadget: strict decoding error: unknown field \"metadata.foo\", unknown field "
                            + "\"spec.x\", unknown field \"spec.y\", unknown field \"top\"");
                });
        assertThatThrownBy(() -> send("POST", "/api/v1/namespaces/" + ns + "/configmaps?fieldValidation=Strict", CONFIGMAP))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.status().orElseThrow()
                        .getMessage()).isEqualTo("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict "
                        + "decoding error: unknown field \"metadata.foo\", unknown field \"spec\", unknown field \"zz\", "
                        + "unknown field \"aa\""));
        assertThatThrownBy(() -> send("POST", gadgets(ns) + "?fieldValidation=strict", GADGET))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.status().orElseThrow()
                        .getMessage()).isEqualTo("CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported "
                        + "value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""));
    }

    @Test
    void warnIsTheDefaultWithAWarningPerDroppedField() {
        String ns = namespace("warn");

        JsonNode gadget = json(send("POST", gadgets(ns), GADGET).text());
        List<String> gadgetWarnings = List.copyOf(warnings);
        warnings.clear();
        JsonNode configMap = json(send("POST", "/api/v1/namespaces/" + ns + "/configmaps?fieldValidation=Warn",
                CONFIGMAP).text());

        assertThat(gadgetWarnings).containsExactly(warning("metadata.foo"), warning("spec.x"), warning("spec.y"),
                warning("top"));
        assertThat(gadget.path("spec")).isEqualTo(json("{\"size\":1}"));
        assertThat(gadget.has("top")).isFalse();
        assertThat(warnings).containsExactly(warning("metadata.foo"), warning("spec"), warning("zz"), warning("aa"));
        assertThat(configMap.has("zz")).isFalse();
        assertThat(configMap.path("metadata").has("foo")).isFalse();
    }

    @Test
    void fieldsNamedTwiceAreReportedBeforeUnknownOnesAndTheLastValueCounts() {
        String ns = namespace("duplicates");

        assertThatThrownBy(() -> send("POST", "/api/v1/namespaces/" + ns + "/configmaps?fieldValidation=Strict",
                "{\"metadata\":{\"name\":\"dup\"},\"data\":{\"a\":\"1\",\"a\":\"2\"},\"data\":{\"b\":\"1\"},\"zz\":1}"))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.status().orElseThrow()
                        .getMessage()).isEqualTo("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict "
                        + "decoding error: duplicate field \"data.a\", duplicate field \"data\", unknown field \"zz\""));
        JsonNode gadget = json(send("POST", gadgets(ns), "{\"apiVersion\":\"testenv.reactiveinformer.io/v1\","
                + "\"kind\":\"Gadget\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"size\":1,\"size\":2,\"x\":1},"
                + "\"spec\":{\"size\":3,\"z\":1}}").text());

        assertThat(warnings).containsExactly("299 - \"duplicate field \\\"spec.size\\\"\"",
                "299 - \"duplicate field \\\"spec\\\"\"", warning("spec.z"));
        assertThat(gadget.path("spec")).isEqualTo(json("{\"size\":3}"));
        warnings.clear();
        send("PATCH", gadgets(ns) + "/d", "application/merge-patch+json", "{\"spec\":{\"size\":4,\"size\":5}}");
        assertThat(warnings).containsExactly("299 - \"duplicate field \\\"spec.size\\\"\"");
    }

    @Test
    void patchesAreCheckedToo() {
        String ns = namespace("patch");
        send("POST", gadgets(ns) + "?fieldValidation=Ignore", GADGET);
        warnings.clear();

        send("PATCH", gadgets(ns) + "/g", "application/json-patch+json", "[{\"op\":\"add\",\"path\":\"/spec/q\","
                + "\"value\":{\"r\":1}},{\"op\":\"add\",\"path\":\"/spec/template\",\"value\":{\"apiVersion\":\"v1\","
                + "\"kind\":\"Pod\",\"metadata\":{\"bogus\":1}}}]");

        assertThat(warnings).containsExactly(warning("spec.q"), warning("spec.template.metadata.bogus"));
        assertThat(warnings).hasSize(2);
        assertThatThrownBy(() -> send("PATCH", gadgets(ns) + "/g?fieldValidation=Strict", "application/merge-patch+json",
                "{\"spec\":{\"x\":1,\"size\":2}}")).isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.status().orElseThrow().getMessage()).startsWith(" \"\" is invalid: patch: Invalid value: ")
                            .endsWith(": strict decoding error: unknown field \"spec.x\"");
                });
        assertThatThrownBy(() -> send("PATCH", gadgets(ns) + "/missing?fieldValidation=Strict",
                "application/merge-patch+json", "{\"spec\":{\"x\":1}}"))
                .isInstanceOf(KubernetesApiException.NotFound.class);
        assertThatThrownBy(() -> send("PATCH", gadgets(ns) + "/g?fieldManager=m&fieldValidation=Ignore",
                "application/apply-patch+yaml", "{\"apiVersion\":\"testenv.reactiveinformer.io/v1\",\"kind\":\"Gadget\","
                        + "\"metadata\":{\"name\":\"g\"},\"spec\":{\"size\":4,\"x\":1}}"))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(500);
                    assertThat(e.status().orElseThrow().getMessage()).isEqualTo("failed to create typed patch object "
                            + "(/g; testenv.reactiveinformer.io/v1, Kind=Gadget): .spec.x: field not declared in schema");
                });
        String current = json(send("GET", gadgets(ns) + "/g", "").text()).path("metadata").path("resourceVersion")
                .asString();
        warnings.clear();
        send("PUT", gadgets(ns) + "/g?fieldValidation=Ignore", GADGET.replace("\"name\":\"g\"",
                "\"name\":\"g\",\"resourceVersion\":\"" + current + "\""));
        assertThat(warnings).isEmpty();
    }

    private String gadgets(String namespace) {
        return "/apis/" + backend().gadgets().group() + "/v1/namespaces/" + namespace + "/gadgets";
    }

    private RawResponse send(String method, String path, String body) {
        return send(method, path, "application/json", body);
    }

    private RawResponse send(String method, String path, String contentType, String body) {
        return await(recording.raw(body.isEmpty() ? RawRequest.get(path)
                : RawRequest.of(method, path, contentType, body.getBytes(StandardCharsets.UTF_8))));
    }

    private static String warning(String field) {
        return "299 - \"unknown field \\\"" + field + "\\\"\"";
    }

    private JsonNode json(String text) {
        return admin().json().mapper().readTree(text);
    }
}
