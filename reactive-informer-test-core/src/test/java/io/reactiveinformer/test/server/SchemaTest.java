package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.reactiveinformer.api.ResourceType;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class SchemaTest {

    @Test
    void aPodsListsMergeByTheKeysOfKubeApiServersOpenApi() {
        Schema pod = Schema.builtIn(ResourceType.of(V1Pod.class)).orElseThrow();
        Schema containers = pod.property("spec").property("containers");

        assertThat(containers.type()).isEqualTo("array");
        assertThat(containers.listType()).isEqualTo("map");
        assertThat(containers.listMapKeys()).containsExactly("name");
        assertThat(containers.patchMergeKey()).isEqualTo("name");
        assertThat(containers.patchStrategies()).containsExactly("merge");
        assertThat(pod.property("spec").property("volumes").patchStrategies()).containsExactlyInAnyOrder("merge", "retainKeys");
        Schema env = containers.items().property("env");
        assertThat(env.listMapKeys()).containsExactly("name");
        assertThat(containers.items().property("args").listType()).isEqualTo("atomic");
        assertThat(pod.property("metadata").property("finalizers").listType()).isEqualTo("set");
        assertThat(pod.property("status").property("conditions").listMapKeys()).containsExactly("type");
        assertThat(pod.property("metadata").property("labels").isMap()).isTrue();
        assertThat(pod.property("metadata").property("labels").property("app").type()).isEqualTo("string");
        assertThat(pod.property("spec").property("nodeSelector").atomicMap()).isTrue();
        assertThat(pod.property("spec").property("noSuchField").known()).isFalse();
        assertThat(pod.property("spec").allows("noSuchField")).isFalse();
    }

    @Test
    void kindsOfOtherGroupsAndUnknownKinds() {
        Schema deployment = Schema.builtIn(ResourceType.of(V1Deployment.class)).orElseThrow();
        assertThat(deployment.property("spec").property("template").property("spec").property("containers")
                .listMapKeys()).containsExactly("name");
        assertThat(Schema.builtIn(ResourceType.of(V1ConfigMap.class)).orElseThrow().property("data").isMap()).isTrue();
        assertThat(Schema.UNKNOWN.property("x").listType()).isEqualTo("atomic");
        assertThat(Schema.UNKNOWN.allows("x")).isTrue();
    }

    @Test
    void aCustomResourcesSchemaComesFromItsDefinition() {
        Schema widget = Schema.of(JsonMapper.builder().build().readTree("""
                {"type":"object","properties":{"spec":{"type":"object","properties":{
                  "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port"],
                           "items":{"type":"object","properties":{"port":{"type":"integer"}}}},
                  "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}
                """));
        Schema ports = widget.property("spec").property("ports");
        assertThat(ports.listMapKeys()).containsExactly("port");
        assertThat(ports.items().property("port").type()).isEqualTo("integer");
        assertThat(widget.property("spec").property("extra").preservesUnknownFields()).isTrue();
        assertThat(widget.property("spec").property("extra").allows("anything")).isTrue();
    }
}
