package io.reactiveinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import org.junit.jupiter.api.Test;

class ObjectKeysTest {

    @Test
    void namespacedObjectKeyIsNamespaceSlashName() {
        assertThat(ObjectKeys.keyOf(TestPods.pod("ns", "web", "1"))).isEqualTo("ns/web");
    }

    @Test
    void clusterScopedObjectKeyIsName() {
        assertThat(ObjectKeys.keyOf(new V1Namespace().metadata(new V1ObjectMeta().name("kube-system"))))
                .isEqualTo("kube-system");
        assertThat(ObjectKeys.key("", "n")).isEqualTo("n");
    }

    @Test
    void splitsKeys() {
        assertThat(ObjectKeys.namespaceOf("ns/web")).isEqualTo("ns");
        assertThat(ObjectKeys.nameOf("ns/web")).isEqualTo("web");
        assertThat(ObjectKeys.namespaceOf("node-1")).isEmpty();
        assertThat(ObjectKeys.nameOf("node-1")).isEqualTo("node-1");
    }

    @Test
    void objectWithoutNameCannotBeKeyed() {
        assertThatThrownBy(() -> ObjectKeys.keyOf(new V1Pod())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ObjectKeys.keyOf(new V1Pod().metadata(new V1ObjectMeta().namespace("ns"))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
