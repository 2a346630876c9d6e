package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1StatusCause;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The messages are kube-apiserver v1.36's for the same objects of {@code testenv/crds/gadgets.yaml}. */
class StructuralValidationTest {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final ClusterState state = ClusterState.builder().customResource(CustomResourceDefinitionTest.GADGETS).build();
    private final ResourceType<?> gadgets = state.resource("testenv.reactiveinformer.io", "v1", "gadgets").orElseThrow();

    @Test
    void everyViolationIsACauseOfOne422() {
        assertThatThrownBy(() -> create("a", """
                {"size":"big","ratio":2,"color":"pink","name":"A1","enabled":"yes","port":1.5,"since":"yesterday",
                 "tags":[],"labels":{"a":1},"template":{"spec":{"replicas":"x"}}}"""))
                .isInstanceOfSatisfying(ApiError.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.reason()).isEqualTo("Invalid");
                    assertThat(e.getMessage()).startsWith("Gadget.testenv.reactiveinformer.io \"a\" is invalid: [");
                    assertThat(e.toStatus().getDetails().getName()).isEqualTo("a");
                    assertThat(e.toStatus().getDetails().getGroup()).isEqualTo("testenv.reactiveinformer.io");
                    assertThat(e.toStatus().getDetails().getKind()).isEqualTo("Gadget");
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
    }

    @Test
    void boundsLengthsAndCounts() {
        assertThatThrownBy(() -> create("b", """
                {"size":-1,"ratio":0.1,"name":"abcdefghij","tags":["a","b","c","d"],"color":null}"""))
                .isInstanceOfSatisfying(ApiError.class, e -> assertThat(causes(e)).containsExactlyInAnyOrder(
                        "FieldValueTooMany spec.tags Too many: 4: must have at most 3 items",
                        "FieldValueInvalid spec.ratio Invalid value: 0.1: spec.ratio in body should be greater than or "
                                + "equal to 0.5",
                        "FieldValueInvalid spec.size Invalid value: -1: spec.size in body should be greater than or equal "
                                + "to 0",
                        "FieldValueTooLong spec.name Too long: may not be more than 8 bytes"));
        assertThatThrownBy(() -> create("c", "{\"size\":101,\"name\":\"a\"}"))
                .isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.getMessage()).isEqualTo(
                        "Gadget.testenv.reactiveinformer.io \"c\" is invalid: [spec.size: Invalid value: 101: spec.size "
                                + "in body should be less than or equal to 100, spec.name: Invalid value: \"a\": spec.name "
                                + "in body should be at least 2 chars long]"));
    }

    @Test
    void requiredFieldsAndTypesOfObjects() {
        assertThatThrownBy(() -> create("d", "{}")).isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.getMessage())
                .isEqualTo("Gadget.testenv.reactiveinformer.io \"d\" is invalid: spec.size: Required value"));
        assertThatThrownBy(() -> create("e", "\"str\"")).isInstanceOfSatisfying(ApiError.class, e -> assertThat(
                e.getMessage()).isEqualTo("Gadget.testenv.reactiveinformer.io \"e\" is invalid: spec: Invalid value: "
                + "\"string\": spec in body must be of type object: \"string\""));
    }

    @Test
    void validObjectsPassAndUpdatesArePrunedAndValidatedToo() {
        ObjectNode created = create("ok", """
                {"size":0,"ratio":1.5,"color":"red","name":"ab","enabled":true,"note":null,"port":"http",
                 "since":"2026-11-26T18:28:50Z","tags":["a"],"labels":{"a":"b"},"extra":{"x":[1]},
                 "template":{"apiVersion":"v1","kind":"Pod","spec":{"replicas":1}}}""");
        assertThat(created.path("spec").path("port").asString()).isEqualTo("http");

        ObjectNode patched = state.patch(gadgets, "ns", "ok", PatchType.MERGE, tree("{\"spec\":{\"port\":8080,\"x\":1}}"),
                false);
        assertThat(patched.path("spec").path("port").asInt()).isEqualTo(8080);
        assertThat(patched.path("spec").has("x")).isFalse();
        assertThatThrownBy(() -> state.patch(gadgets, "ns", "ok", PatchType.JSON_PATCH,
                tree("[{\"op\":\"replace\",\"path\":\"/spec/size\",\"value\":1000}]"), false))
                .isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.getMessage()).isEqualTo(
                        "Gadget.testenv.reactiveinformer.io \"ok\" is invalid: spec.size: Invalid value: 1000: spec.size "
                                + "in body should be less than or equal to 100"));
        assertThat(state.get(gadgets, "ns", "ok").path("spec").path("size").asInt()).isZero();
    }

    private ObjectNode create(String name, String spec) {
        return state.create(gadgets, "ns", (ObjectNode) tree("{\"apiVersion\":\"testenv.reactiveinformer.io/v1\",\"kind\":\"Gadget\","
                + "\"metadata\":{\"name\":\"" + name + "\"},\"spec\":" + spec + "}"));
    }

    private static List<String> causes(ApiError e) {
        return e.toStatus().getDetails().getCauses().stream()
                .map((V1StatusCause c) -> c.getReason() + " " + c.getField() + " " + c.getMessage()).toList();
    }

    private static JsonNode tree(String json) {
        return MAPPER.readTree(json);
    }
}
