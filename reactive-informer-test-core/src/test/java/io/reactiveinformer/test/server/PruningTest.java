package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class PruningTest {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final ClusterState state = ClusterState.builder().customResource(CustomResourceDefinitionTest.GADGETS)
            .resource(ResourceType.of(V1Deployment.class)).build();
    private final ResourceType<?> gadgets = state.resource("testenv.reactiveinformer.io", "v1", "gadgets").orElseThrow();

    @Test
    void aCustomResourceKeepsWhatItsSchemaDeclaresAndWhatItPreserves() {
        ObjectNode stored = state.create(gadgets, "ns", tree("""
                {"apiVersion":"testenv.reactiveinformer.io/v1","kind":"Gadget","metadata":{"name":"p","foo":1},
                 "spec":{"size":1,"x":1,"y":{"z":2},"color":null,"note":null,"extra":{"any":{"deep":1}},
                   "template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"t","bogus":1,"labels":{"a":"b"}},
                               "spec":{"replicas":2,"q":1},"other":1}},
                 "top":1}"""));

        assertThat(stored.get("spec")).isEqualTo(tree("""
                {"size":1,"note":null,"extra":{"any":{"deep":1}},
                 "template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"t","labels":{"a":"b"}},
                             "spec":{"replicas":2}}}"""));
        assertThat(stored.has("top")).isFalse();
        assertThat(stored.get("metadata").has("foo")).isFalse();
    }

    @Test
    void unknownFieldsAreNamedAsTheRealServerNamesThem() {
        Kind kind = state.kind(gadgets);

        assertThat(Pruning.unknownFields(kind, tree("""
                {"metadata":{"foo":1},"top":1,"spec":{"y":1,"x":1,"template":{"metadata":{"bogus":1},"q":1},
                 "extra":{"free":1},"labels":{"any":"x"}},"status":{"w":1}}""")))
                .containsExactly("metadata.foo", "spec.template.q", "spec.x", "spec.y", "status.w", "top",
                        "spec.template.metadata.bogus");
        Kind deployments = state.kind(ResourceType.of(V1Deployment.class));
        assertThat(Pruning.unknownFields(deployments, tree("""
                {"zz":1,"spec":{"template":{"metadata":{"zz":1},"spec":{"containers":[{"name":"c","bogus":1}]}}},
                 "aa":1}""")))
                .as("a built-in kind's in the order of the body")
                .containsExactly("zz", "spec.template.metadata.zz", "spec.template.spec.containers[0].bogus", "aa");
    }

    @Test
    void builtInKindsDropWhatTheirTypeDoesNotHave() {
        ResourceType<V1ConfigMap> configMaps = ResourceType.of(V1ConfigMap.class);
        state.create(configMaps, "ns", tree("{\"metadata\":{\"name\":\"c\",\"foo\":1},\"data\":{\"a\":\"b\"},\"spec\":1}"));
        ObjectNode patched = state.patch(configMaps, "ns", "c", PatchType.MERGE, tree("{\"bogus\":{\"x\":1}}"), false);

        assertThat(patched.has("spec")).isFalse();
        assertThat(patched.has("bogus")).isFalse();
        assertThat(patched.get("metadata").has("foo")).isFalse();
        assertThat(patched.get("data")).isEqualTo(tree("{\"a\":\"b\"}"));
        assertThat(patched.get("metadata").path("resourceVersion").asString())
                .as("a patch that only adds unknown fields changes nothing")
                .isEqualTo(state.get(configMaps, "ns", "c").get("metadata").path("resourceVersion").asString());
    }

    @Test
    void aResourceRegisteredWithoutADefinitionKeepsEverything() {
        ResourceType<?> free = ResourceType.dynamic("example.com", "v1", "things", "Thing", true);
        state.register(free);

        ObjectNode stored = state.create(free, "ns", tree("{\"metadata\":{\"name\":\"t\"},\"spec\":{\"x\":1},\"y\":2}"));

        assertThat(stored.path("spec").path("x").asInt()).isEqualTo(1);
        assertThat(stored.path("y").asInt()).isEqualTo(2);
        assertThat(Pruning.unknownFields(state.kind(free), stored)).isEmpty();
    }

    private static ObjectNode tree(String json) {
        return (ObjectNode) MAPPER.readTree(json);
    }
}
