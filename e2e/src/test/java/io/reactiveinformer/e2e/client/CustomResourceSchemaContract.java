package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1StatusCause;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.RawRequest;
import io.reactiveinformer.client.ResourceClient;
import tools.jackson.databind.JsonNode;

/**
 * Custom resources validated and pruned by their definition's structural schema
 * ({@code testenv/crds/gadgets.yaml} and {@code widgets.yaml}): the same 422 causes for the same
 * violations, the same fields dropped. The real server lists the causes of one error in no stable
 * order, so a message with several is compared by its causes.
 */
abstract class CustomResourceSchemaContract extends ClientContract {

    private static final String GADGET = "{\"apiVersion\":\"testenv.reactiveinformer.io/v1\",\"kind\":\"Gadget\","
            + "\"metadata\":{\"name\":\"%s\"},\"spec\":%s}";

    CustomResourceSchemaContract(Backend backend) {
        super(backend);
    }

    @Test
    void aWidgetViolatingItsSchemaIsInvalidAndNothingIsStored() {
        ResourceClient<DynamicObject> widgets = admin().resource(backend().widgets()).inNamespace(namespace("widgetschema"));
        DynamicObject big = new DynamicObject("testenv.reactiveinformer.io/v1", "Widget",
                new V1ObjectMeta().name("w")).set("spec", json("{\"size\":\"big\"}"));

        assertThatThrownBy(() -> await(widgets.create(big))).isInstanceOfSatisfying(KubernetesApiException.class, e -> {
            assertThat(e.code()).isEqualTo(422);
            assertThat(e.reason()).isEqualTo("Invalid");
            assertThat(e.getMessage()).contains("Widget.testenv.reactiveinformer.io \"w\" is invalid: spec.size: Invalid "
                    + "value: \"string\": spec.size in body must be of type integer: \"string\"");
            assertThat(causes(e)).containsExactly("FieldValueTypeInvalid spec.size Invalid value: \"string\": spec.size "
                    + "in body must be of type integer: \"string\"");
            assertThat(e.status().orElseThrow().getDetails().getKind()).isEqualTo("Widget");
            assertThat(e.status().orElseThrow().getDetails().getGroup()).isEqualTo("testenv.reactiveinformer.io");
        });
        await(widgets.create(big.set("spec", json("{\"size\":1}"))));
        assertThatThrownBy(() -> await(widgets.patch("w", PatchType.MERGE, "{\"spec\":{\"size\":-1}}")))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.getMessage()).contains(
                        "Widget.testenv.reactiveinformer.io \"w\" is invalid: spec.size: Invalid value: -1: spec.size in "
                                + "body should be greater than or equal to 0"));
        assertThat(await(widgets.get("w")).get("spec")).isEqualTo(json("{\"size\":1}"));
    }

    @Test
    void everyViolationOfAGadgetIsACause() {
        String path = gadgets(namespace("gadgetschema"));

        assertThatThrownBy(() -> post(path, "a", """
                {"size":"big","ratio":2,"color":"pink","name":"A1","enabled":"yes","port":1.5,"since":"yesterday",
                 "tags":[],"labels":{"a":1},"template":{"spec":{"replicas":"x"}}}"""))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).contains("Gadget.testenv.reactiveinformer.io \"a\" is invalid: [");
                    assertThat(causes(e)).containsExactlyInAnyOrder(
                            "FieldValueInvalid spec.ratio Invalid value: 2: spec.ratio in body should be less than 2",
                            "FieldValueTypeInvalid spec.since Invalid value: \"yesterday\": spec.since in body must be of "
                                    + "type date-time: \"yesterday\"",
                            "FieldValueTypeInvalid spec.enabled Invalid value: \"string\": spec.enabled in body must be of "
                                    + "type boolean: \"string\"",
                            "FieldValueTypeInvalid spec.port Invalid value: \"number\": spec.port in body must be of type "
                                    + "integer,string: \"number\"",
                            "FieldValueTypeInvalid spec.size Invalid value: \"string\": spec.size in body must be of type "
                                    + "integer: \"string\"",
                            "FieldValueInvalid spec.name Invalid value: \"A1\": spec.name in body should match '^[a-z]+$'",
                            "FieldValueTypeInvalid spec.template.spec.replicas Invalid value: \"string\": "
                                    + "spec.template.spec.replicas in body must be of type integer: \"string\"",
                            "FieldValueTypeInvalid spec.labels.a Invalid value: \"integer\": spec.labels.a in body must be "
                                    + "of type string: \"integer\"",
                            "FieldValueNotSupported spec.color Unsupported value: \"pink\": supported values: \"red\", "
                                    + "\"green\", \"blue\"",
                            "FieldValueInvalid spec.tags Invalid value: 0: spec.tags in body should have at least 1 items",
                            "FieldValueRequired spec.template.apiVersion Required value",
                            "FieldValueRequired spec.template.kind Required value");
                });
        assertThatThrownBy(() -> post(path, "b", "{\"size\":-1,\"ratio\":0.1,\"name\":\"abcdefghij\",\"tags\":[\"a\",\"b\","
                + "\"c\",\"d\"]}")).isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(causes(e))
                .containsExactlyInAnyOrder(
                        "FieldValueTooMany spec.tags Too many: 4: must have at most 3 items",
                        "FieldValueInvalid spec.ratio Invalid value: 0.1: spec.ratio in body should be greater than or "
                                + "equal to 0.5",
                        "FieldValueInvalid spec.size Invalid value: -1: spec.size in body should be greater than or equal "
                                + "to 0",
                        "FieldValueTooLong spec.name Too long: may not be more than 8 bytes"));
        assertThatThrownBy(() -> post(path, "d", "{}")).isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(
                e.getMessage()).contains("Gadget.testenv.reactiveinformer.io \"d\" is invalid: spec.size: Required value"));
        assertThatThrownBy(() -> post(path, "e", "\"str\"")).isInstanceOfSatisfying(KubernetesApiException.class,
                e -> assertThat(e.getMessage()).contains("Gadget.testenv.reactiveinformer.io \"e\" is invalid: spec: "
                        + "Invalid value: \"string\": spec in body must be of type object: \"string\""));
    }

    @Test
    void whatTheSchemaDoesNotDeclareIsDropped() {
        String path = gadgets(namespace("gadgetprune"));

        JsonNode stored = json(post(path + "?fieldValidation=Ignore", "p", """
                {"size":1,"x":1,"y":{"z":2},"color":null,"note":null,"port":"http","since":"2026-11-26T18:28:50Z",
                 "extra":{"any":{"deep":[1,{"a":null}]}},
                 "template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"t","bogus":1,"labels":{"a":"b"}},
                             "spec":{"replicas":2,"q":1},"other":1}}"""));

        assertThat(stored.path("spec")).isEqualTo(json("""
                {"size":1,"note":null,"port":"http","since":"2026-11-26T18:28:50Z","extra":{"any":{"deep":[1,{"a":null}]}},
                 "template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"t","labels":{"a":"b"}},
                             "spec":{"replicas":2}}}"""));
        DynamicObject patched = await(admin().resource(backend().gadgets()).inNamespace(path.split("/")[5])
                .patch("p", PatchType.MERGE, "{\"spec\":{\"size\":2,\"x\":3},\"top\":1,\"metadata\":{\"foo\":1}}"));
        assertThat(patched.get("spec").path("size").asInt()).isEqualTo(2);
        assertThat(patched.get("spec").has("x")).isFalse();
        assertThat(patched.get("top")).isNull();
    }

    @Test
    void aCustomResourceIsReplacedOnlyAtAResourceVersion() {
        String path = gadgets(namespace("gadgetput"));
        String created = post(path, "g", "{\"size\":1}");
        String unconditional = GADGET.formatted("g", "{\"size\":2}");

        assertThatThrownBy(() -> await(admin().raw(RawRequest.of("PUT", path + "/g", "application/json",
                unconditional.getBytes(StandardCharsets.UTF_8))))).isInstanceOfSatisfying(KubernetesApiException.class,
                e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.status().orElseThrow().getMessage()).isEqualTo("gadgets.testenv.reactiveinformer.io \"g\""
                            + " is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update");
                    assertThat(causes(e)).containsExactly("FieldValueInvalid metadata.resourceVersion Invalid value: 0: "
                            + "must be specified for an update");
                });
        String rv = json(created).path("metadata").path("resourceVersion").asString();
        String replaced = await(admin().raw(RawRequest.of("PUT", path + "/g", "application/json", unconditional
                .replace("\"name\":\"g\"", "\"name\":\"g\",\"resourceVersion\":\"" + rv + "\"")
                .getBytes(StandardCharsets.UTF_8)))).text();
        assertThat(json(replaced).path("spec")).isEqualTo(json("{\"size\":2}"));
    }

    private String gadgets(String namespace) {
        return "/apis/" + backend().gadgets().group() + "/v1/namespaces/" + namespace + "/gadgets";
    }

    /** POSTs a Gadget named {@code name} with {@code spec}; answers the stored object's JSON. */
    private String post(String path, String name, String spec) {
        return await(admin().raw(RawRequest.of("POST", path, "application/json",
                GADGET.formatted(name, spec).getBytes(StandardCharsets.UTF_8)))).text();
    }

    private JsonNode json(String text) {
        return admin().json().mapper().readTree(text);
    }

    static List<String> causes(KubernetesApiException e) {
        return e.status().orElseThrow().getDetails().getCauses().stream()
                .map((V1StatusCause c) -> c.getReason() + " " + c.getField() + " " + c.getMessage()).toList();
    }
}
