package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.ResourceType;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class FieldSetTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void fieldsV1RoundTripsItemsThatAreMembersAndHaveChildren() {
        JsonNode fields = JSON.readTree("""
                {"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{".":{},"f:image":{},"f:name":{}}},
                 "f:replicas":{}},"f:metadata":{"f:finalizers":{"v:\\"a\\"":{}}}}""");

        FieldSet set = FieldSet.fromFieldsV1(fields);

        assertThat(set.toFieldsV1()).isEqualTo(fields);
        assertThat(set.contains(List.of("f:spec", "f:containers", "k:{\"name\":\"app\"}"))).isTrue();
        assertThat(set.contains(List.of("f:spec", "f:containers"))).isFalse();
        assertThat(set.paths().stream().map(FieldSet::pathString)).containsExactly(
                ".metadata.finalizers[=\"a\"]", ".spec.replicas", ".spec.containers[name=\"app\"]",
                ".spec.containers[name=\"app\"].image", ".spec.containers[name=\"app\"].name");
    }

    @Test
    void unionDifferenceAndIntersectionArePathWise() {
        FieldSet a = FieldSet.of(List.of(List.of("f:data", "f:a"), List.of("f:data", "f:b")));
        FieldSet b = FieldSet.of(List.of(List.of("f:data", "f:b"), List.of("f:data", "f:c")));

        assertThat(a.intersection(b)).isEqualTo(FieldSet.of(List.of(List.of("f:data", "f:b"))));
        assertThat(a.copy().removeAll(b)).isEqualTo(FieldSet.of(List.of(List.of("f:data", "f:a"))));
        assertThat(a.copy().union(b).paths()).hasSize(3);
        assertThat(a.copy().removeWithin(FieldSet.of(List.of(List.of("f:data"))))).isEqualTo(new FieldSet());
        assertThat(a.copy().removeAll(FieldSet.of(List.of(List.of("f:data"))))).isEqualTo(a);
    }

    @Test
    void theFieldsOfAConfigurationFollowTheSchema() {
        Schema configMap = Schema.builtIn(ResourceType.of(V1ConfigMap.class)).orElseThrow();
        FieldSet set = TypedValue.fields(JSON.readTree("""
                {"metadata":{"name":"c","labels":{"x":"1"}},"data":{"a":"1"},"binaryData":{}}"""), configMap);

        assertThat(set.toFieldsV1()).isEqualTo(JSON.readTree("""
                {"f:binaryData":{},"f:data":{"f:a":{}},"f:metadata":{"f:labels":{"f:x":{}},"f:name":{}}}"""));
    }

    @Test
    void mapListItemsAreNamedByTheirKeysWithTheSchemasDefaults() {
        Schema pod = Schema.builtIn(ResourceType.of(V1Pod.class)).orElseThrow();
        FieldSet set = TypedValue.fields(JSON.readTree("""
                {"spec":{"containers":[{"name":"app","args":["a"],"ports":[{"containerPort":80}]}]}}"""), pod);

        assertThat(set.toFieldsV1()).isEqualTo(JSON.readTree("""
                {"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{".":{},"f:args":{},"f:name":{},
                 "f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}"""));
    }

    @Test
    void aSchemalessKindsMapsAreGranularAndItsListsAtomic() {
        FieldSet set = TypedValue.fields(JSON.readTree("{\"spec\":{\"a\":{\"b\":1},\"l\":[1,2]}}"), Schema.UNKNOWN);

        assertThat(set.toFieldsV1()).isEqualTo(JSON.readTree("""
                {"f:spec":{".":{},"f:a":{".":{},"f:b":{}},"f:l":{}}}"""));
    }

    @Test
    void aComparisonNamesWhatWasRemovedModifiedAndAdded() {
        Schema deployment = Schema.builtIn(ResourceType.of(V1Deployment.class)).orElseThrow();
        JsonNode before = JSON.readTree("""
                {"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b"}]}}}}""");
        JsonNode after = JSON.readTree("""
                {"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"a","image":"y"},{"name":"c"}]}}}}""");

        TypedValue.Comparison c = TypedValue.compare(before, after, deployment);

        String containers = ".spec.template.spec.containers";
        assertThat(c.modified().paths().stream().map(FieldSet::pathString))
                .containsExactlyInAnyOrder(".spec.replicas", containers + "[name=\"a\"].image");
        assertThat(c.removed().paths().stream().map(FieldSet::pathString))
                .containsExactlyInAnyOrder(containers + "[name=\"b\"]", containers + "[name=\"b\"].name");
        assertThat(c.added().paths().stream().map(FieldSet::pathString))
                .containsExactlyInAnyOrder(containers + "[name=\"c\"]", containers + "[name=\"c\"].name");
    }
}
