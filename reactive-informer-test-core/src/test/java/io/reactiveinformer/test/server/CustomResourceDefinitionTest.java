package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveinformer.api.ResourceType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
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
