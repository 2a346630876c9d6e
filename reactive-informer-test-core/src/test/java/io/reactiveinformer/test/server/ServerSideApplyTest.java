package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1StatusCause;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class ServerSideApplyTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final ResourceType<V1ConfigMap> MAPS = ResourceType.of(V1ConfigMap.class);
    private static final ResourceType<V1Deployment> DEPLOYMENTS = ResourceType.of(V1Deployment.class);

    private final ClusterState state = ClusterState.create();

    @Test
    void theApplierOwnsExactlyItsConfiguration() {
        ObjectNode c = applyMap("a", false, "{\"data\":{\"x\":\"1\",\"y\":\"2\"},\"metadata\":{\"labels\":{\"l\":\"1\"}}}");

        assertThat(c.path("metadata").path("managedFields")).hasSize(1);
        JsonNode entry = c.path("metadata").path("managedFields").get(0);
        assertThat(entry.path("manager").asString()).isEqualTo("a");
        assertThat(entry.path("operation").asString()).isEqualTo("Apply");
        assertThat(entry.path("apiVersion").asString()).isEqualTo("v1");
        assertThat(entry.path("fieldsType").asString()).isEqualTo("FieldsV1");
        assertThat(entry.has("time")).isTrue();
        assertThat(entry.path("fieldsV1")).isEqualTo(tree("""
                {"f:data":{"f:x":{},"f:y":{}},"f:metadata":{"f:labels":{"f:l":{}}}}"""));
    }

    @Test
    void anUpdateTakesTheFieldsItChangesWithoutConflict() {
        applyMap("a", false, "{\"data\":{\"x\":\"1\",\"y\":\"2\"}}");

        ObjectNode c = state.patch(MAPS, "ns", "c", PatchType.MERGE, tree("{\"data\":{\"y\":\"3\",\"z\":\"4\"}}"), false,
                false, "editor", false);

        assertThat(owners(c)).containsExactly("a/Apply {\"f:data\":{\"f:x\":{}}}",
                "editor/Update {\"f:data\":{\"f:y\":{},\"f:z\":{}}}");
    }

    @Test
    void applyingAFieldAnotherManagerOwnsWithAnotherValueConflicts() {
        applyMap("a", false, "{\"data\":{\"x\":\"1\",\"y\":\"2\"}}");
        state.patch(MAPS, "ns", "c", PatchType.MERGE, tree("{\"data\":{\"z\":\"3\"}}"), false, false, "editor", false);

        assertThatThrownBy(() -> applyMap("b", false, "{\"data\":{\"x\":\"9\",\"y\":\"2\",\"z\":\"9\"}}"))
                .isInstanceOfSatisfying(ApiError.class, e -> {
                    assertThat(e.code()).isEqualTo(409);
                    assertThat(e.reason()).isEqualTo("Conflict");
                    assertThat(e.getMessage()).isEqualTo("Apply failed with 2 conflicts: conflicts with \"a\":\n"
                            + "- .data.x\nconflicts with \"editor\" using v1:\n- .data.z");
                    List<String> causes = new ArrayList<>();
                    for (V1StatusCause cause : e.toStatus().getDetails().getCauses()) {
                        causes.add(cause.getReason() + " " + cause.getMessage() + " " + cause.getField());
                    }
                    assertThat(causes).containsExactly("FieldManagerConflict conflict with \"a\" .data.x",
                            "FieldManagerConflict conflict with \"editor\" using v1 .data.z");
                });
        assertThat(state.get(MAPS, "ns", "c").path("data")).isEqualTo(tree("{\"x\":\"1\",\"y\":\"2\",\"z\":\"3\"}"));
    }

    @Test
    void oneConflictIsWordedAsOne() {
        applyMap("a", false, "{\"data\":{\"x\":\"1\"}}");

        assertThatThrownBy(() -> applyMap("b", false, "{\"data\":{\"x\":\"2\"}}"))
                .hasMessage("Apply failed with 1 conflict: conflict with \"a\": .data.x");
    }

    @Test
    void theSameValueIsSharedAndAForcedApplyTakesTheField() {
        applyMap("a", false, "{\"data\":{\"x\":\"1\",\"y\":\"2\"}}");

        ObjectNode shared = applyMap("b", false, "{\"data\":{\"y\":\"2\"}}");
        assertThat(owners(shared)).containsExactly("b/Apply {\"f:data\":{\"f:y\":{}}}",
                "a/Apply {\"f:data\":{\"f:x\":{},\"f:y\":{}}}");
        assertThat(shared.path("metadata").path("managedFields").get(0).has("time"))
                .as("an applier that changed nothing has no time").isFalse();

        ObjectNode forced = applyMap("b", true, "{\"data\":{\"x\":\"9\",\"y\":\"2\"}}");
        assertThat(forced.path("data")).isEqualTo(tree("{\"x\":\"9\",\"y\":\"2\"}"));
        assertThat(owners(forced)).containsExactly("a/Apply {\"f:data\":{\"f:y\":{}}}",
                "b/Apply {\"f:data\":{\"f:x\":{},\"f:y\":{}}}");
    }

    @Test
    void aFieldNoLongerAppliedGoesUnlessAnotherManagerOwnsIt() {
        applyMap("a", false, "{\"data\":{\"x\":\"1\",\"y\":\"2\",\"z\":\"3\"}}");
        applyMap("b", false, "{\"data\":{\"y\":\"2\"}}");

        ObjectNode c = applyMap("a", false, "{\"data\":{\"x\":\"1\"}}");

        assertThat(c.path("data")).isEqualTo(tree("{\"x\":\"1\",\"y\":\"2\"}"));
        assertThat(owners(c)).containsExactlyInAnyOrder("a/Apply {\"f:data\":{\"f:x\":{}}}",
                "b/Apply {\"f:data\":{\"f:y\":{}}}");
    }

    @Test
    void containersEnvAndPortsMergeByTheirKeysAcrossManagers() {
        state.patch(DEPLOYMENTS, "ns", "d", PatchType.APPLY, deployment("""
                [{"name":"app","image":"app:1","env":[{"name":"A","value":"1"}],"ports":[{"containerPort":80}]}]"""),
                false, false, "a", false);

        ObjectNode d = state.patch(DEPLOYMENTS, "ns", "d", PatchType.APPLY, deployment("""
                [{"name":"app","env":[{"name":"B","value":"2"}],"ports":[{"containerPort":81}]},
                 {"name":"sidecar","image":"side:1"}]"""), false, false, "b", false);

        JsonNode containers = d.path("spec").path("template").path("spec").path("containers");
        assertThat(containers).hasSize(2);
        assertThat(containers.get(0).path("image").asString()).isEqualTo("app:1");
        assertThat(containers.get(0).path("env")).isEqualTo(JSON.readTree("[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}]"));
        assertThat(containers.get(0).path("ports").findValuesAsString("protocol")).containsExactly("TCP", "TCP");
        assertThat(containers.get(1).path("name").asString()).isEqualTo("sidecar");

        ObjectNode withoutSidecar = state.patch(DEPLOYMENTS, "ns", "d", PatchType.APPLY, deployment("""
                [{"name":"app","env":[{"name":"B","value":"2"}],"ports":[{"containerPort":81}]}]"""),
                false, false, "b", false);
        assertThat(withoutSidecar.path("spec").path("template").path("spec").path("containers").findValuesAsString("name"))
                .containsExactly("app", "A", "B");
    }

    @Test
    void setListsMergeByValueAndAtomicListsAreReplacedWhole() {
        ObjectNode base = tree("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["x/a"]}}""");
        state.patch(MAPS, "ns", "c", PatchType.APPLY, base, false, false, "a", false);
        ObjectNode c = state.patch(MAPS, "ns", "c", PatchType.APPLY, tree("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["x/b"]}}"""),
                false, false, "b", false);
        assertThat(c.path("metadata").path("finalizers")).isEqualTo(JSON.readTree("[\"x/a\",\"x/b\"]"));

        state.patch(DEPLOYMENTS, "ns", "d", PatchType.APPLY, deployment("[{\"name\":\"app\",\"args\":[\"1\",\"2\"]}]"),
                false, false, "a", false);
        assertThatThrownBy(() -> state.patch(DEPLOYMENTS, "ns", "d", PatchType.APPLY,
                deployment("[{\"name\":\"app\",\"args\":[\"3\"]}]"), false, false, "b", false))
                .hasMessageContaining(".spec.template.spec.containers[name=\"app\"].args");
        ObjectNode d = state.patch(DEPLOYMENTS, "ns", "d", PatchType.APPLY,
                deployment("[{\"name\":\"app\",\"args\":[\"3\"]}]"), false, false, "b", true);
        assertThat(d.path("spec").path("template").path("spec").path("containers").get(0).path("args"))
                .isEqualTo(JSON.readTree("[\"3\"]"));
    }

    @Test
    void writesRecordUpdatesAndManagedFieldsSentWithAWriteReplaceOrResetThem() {
        ObjectNode created = state.create(MAPS, "ns", tree("""
                {"metadata":{"name":"c","labels":{"l":"1"}},"data":{"x":"1"}}"""), false, "creator");
        assertThat(owners(created)).containsExactly(
                "creator/Update {\"f:data\":{\".\":{},\"f:x\":{}},\"f:metadata\":{\"f:labels\":{\".\":{},\"f:l\":{}}}}");

        ObjectNode unchanged = state.patch(MAPS, "ns", "c", PatchType.MERGE, tree("{\"data\":{\"x\":\"1\"}}"), false,
                false, "noop", false);
        assertThat(unchanged).isSameAs(state.get(MAPS, "ns", "c"));
        assertThat(unchanged.path("metadata").path("resourceVersion")).isEqualTo(created.path("metadata").path("resourceVersion"));

        ObjectNode reset = state.patch(MAPS, "ns", "c", PatchType.MERGE,
                tree("{\"metadata\":{\"managedFields\":[{}]},\"data\":{\"y\":\"2\"}}"), false, false, "editor", false);
        assertThat(reset.path("metadata").has("managedFields")).isFalse();
        ObjectNode untracked = state.patch(MAPS, "ns", "c", PatchType.MERGE, tree("{\"data\":{\"z\":\"3\"}}"), false,
                false, "editor", false);
        assertThat(untracked.path("metadata").has("managedFields"))
                .as("an object without managedFields is not tracked until applied").isFalse();

        assertThatThrownBy(() -> applyMap("a", false, "{\"data\":{\"z\":\"4\"}}"))
                .hasMessage("Apply failed with 1 conflict: conflict with \"before-first-apply\" using v1: .data.z");
    }

    @Test
    void aDryRunApplyLeavesNothingBehind() {
        applyMap("a", false, "{\"data\":{\"x\":\"1\"}}");
        ObjectNode before = state.get(MAPS, "ns", "c");

        ObjectNode dry = state.patch(MAPS, "ns", "c", PatchType.APPLY, map("{\"data\":{\"x\":\"2\"}}"), false, true, "a",
                false);

        assertThat(dry.path("data").path("x").asString()).isEqualTo("2");
        assertThat(state.get(MAPS, "ns", "c")).isSameAs(before);
        assertThat(state.patch(MAPS, "ns", "e", PatchType.APPLY, map("{}"), false, true, "a", false)
                .path("metadata").path("name").asString()).isEqualTo("e");
        assertThat(state.trees(MAPS)).hasSize(1);
    }

    private ObjectNode applyMap(String manager, boolean force, String content) {
        return state.patch(MAPS, "ns", "c", PatchType.APPLY, map(content), false, false, manager, force);
    }

    private static ObjectNode map(String content) {
        ObjectNode config = tree(content);
        config.put("apiVersion", "v1").put("kind", "ConfigMap");
        ObjectSemantics.metadata(config).put("name", "c");
        return config;
    }

    private static ObjectNode deployment(String containers) {
        return tree("""
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{
                 "selector":{"matchLabels":{"app":"d"}},
                 "template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":%s}}}}""".formatted(containers));
    }

    /** Each managedFields entry as {@code manager/operation fieldsV1}, in the stored order. */
    private static List<String> owners(JsonNode object) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : object.path("metadata").path("managedFields")) {
            out.add(e.path("manager").asString() + "/" + e.path("operation").asString() + " " + e.path("fieldsV1"));
        }
        return out;
    }

    private static ObjectNode tree(String json) {
        return (ObjectNode) JSON.readTree(json);
    }
}
