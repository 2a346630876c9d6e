package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.ResourceType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

class CustomResourceDefinitionTest {

    static final Path GADGETS = Path.of("../testenv/crds/gadgets.yaml");
    static final Path WIDGETS = Path.of("../testenv/crds/widgets.yaml");

    @Test
    void aDefinitionRegistersItsServedVersionWithScopeStatusAndSchema() {
        ClusterState state = ClusterState.builder().customResource(GADGETS).customResource(WIDGETS).build();

        ResourceType<?> gadgets = state.resource("testenv.reactiveinformer.io", "v1", "gadgets").orElseThrow();
        assertThat(gadgets.kind()).isEqualTo("Gadget");
        assertThat(gadgets.namespaced()).isTrue();
        assertThat(state.hasStatusSubresource(gadgets)).isTrue();
        Kind kind = state.kind(gadgets);
        assertThat(kind.defined).isTrue();
        assertThat(kind.schema().property("spec").property("size").type()).isEqualTo("integer");
        assertThat(state.resource("testenv.reactiveinformer.io", "v1", "widgets")).isPresent();
    }

    @Test
    void customResourcesAreReplacedOnlyAtAResourceVersionUnlikeMostBuiltInKinds() {
        ClusterState state = ClusterState.builder().customResource(WIDGETS).build();
        ResourceType<?> widgets = state.resource("testenv.reactiveinformer.io", "v1", "widgets").orElseThrow();
        ObjectNode widget = (ObjectNode) yaml("{metadata: {name: w}, spec: {size: 1}}");
        String rv = state.create(widgets, "ns", widget).path("metadata").path("resourceVersion").asString();

        assertThatThrownBy(() -> state.replace(widgets, "ns", "w", widget, false)).isInstanceOfSatisfying(ApiError.class,
                e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).isEqualTo("widgets.testenv.reactiveinformer.io \"w\" is invalid: "
                            + "metadata.resourceVersion: Invalid value: 0: must be specified for an update");
                });
        ((ObjectNode) widget.get("metadata")).put("resourceVersion", rv);
        assertThat(state.replace(widgets, "ns", "w", widget, false).path("metadata").path("resourceVersion").asString())
                .isEqualTo(rv);
        ResourceType<V1ConfigMap> configMaps = ResourceType.of(V1ConfigMap.class);
        state.create(configMaps, "ns", (ObjectNode) yaml("{metadata: {name: c}}"));
        assertThat(state.replace(configMaps, "ns", "c", (ObjectNode) yaml("{metadata: {name: c}, data: {a: b}}"), false)
                .path("data").path("a").asString()).isEqualTo("b");
    }

    @Test
    void aClusterScopedDefinitionWithoutStatus() {
        CustomResourceDefinition crd = CustomResourceDefinition.of(yaml("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                spec:
                  group: example.com
                  scope: Cluster
                  names: {plural: things, kind: Thing}
                  versions:
                  - {name: v1alpha1, served: false, storage: false}
                  - name: v1
                    served: true
                    storage: true
                    schema: {openAPIV3Schema: {type: object}}
                """));

        assertThat(crd.type().apiVersion()).isEqualTo("example.com/v1");
        assertThat(crd.type().namespaced()).isFalse();
        assertThat(crd.statusSubresource()).isFalse();
        assertThat(crd.schema().type()).isEqualTo("object");
    }

    @Test
    void whatItCannotServeIsRefusedLoudly() {
        assertThatThrownBy(() -> CustomResourceDefinition.of(yaml("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                spec:
                  group: example.com
                  names: {plural: things, kind: Thing}
                  versions:
                  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
                  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}
                """))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("serves 2");
        assertThatThrownBy(() -> CustomResourceDefinition.of(yaml("{apiVersion: v1, kind: ConfigMap}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an apiextensions.k8s.io");
        assertThatThrownBy(() -> CustomResourceDefinition.of(yaml("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                spec: {group: example.com, names: {kind: Thing}}
                """))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spec.names.plural");
    }

    private static JsonNode yaml(String text) {
        return YAMLMapper.shared().readTree(text);
    }
}
