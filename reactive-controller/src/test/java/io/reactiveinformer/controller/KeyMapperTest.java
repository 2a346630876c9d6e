package io.reactiveinformer.controller;

import static io.reactiveinformer.controller.TestObjects.controlledBy;
import static io.reactiveinformer.controller.TestObjects.ownedBy;
import static io.reactiveinformer.controller.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import org.junit.jupiter.api.Test;

class KeyMapperTest {

    private final V1Pod pod = pod("a", "p",
            controlledBy("r1"),
            ownedBy("apps/v1beta2", "ReplicaSet", "r2"),
            ownedBy("extensions/v1beta1", "ReplicaSet", "other-group"),
            ownedBy("apps/v1", "Deployment", "other-kind"));

    @Test
    void controllerOwnerIsTheOneMarkedController() {
        assertThat(KeyMapper.<V1Pod>controllerOwner("apps/v1", "ReplicaSet").map(pod))
                .containsExactly(Request.of("a", "r1"));
    }

    @Test
    void anyOwnerMatchesGroupAndKindWhateverTheVersion() {
        assertThat(KeyMapper.<V1Pod>ownerReferences("apps/v1", "ReplicaSet", false).map(pod))
                .containsExactly(Request.of("a", "r1"), Request.of("a", "r2"));
    }

    @Test
    void coreGroupAndClusterScopedObjects() {
        V1Pod node = new V1Pod().metadata(new V1ObjectMeta().name("n")
                .addOwnerReferencesItem(ownedBy("v1", "Namespace", "ns1").controller(true)));
        assertThat(KeyMapper.<V1Pod>controllerOwner("v1", "Namespace").map(node))
                .containsExactly(Request.clusterScoped("ns1"));
        assertThat(KeyMapper.<V1Pod>controllerOwner("apps/v1", "Namespace").map(node)).isEmpty();
    }

    @Test
    void noOwnersNoRequests() {
        assertThat(KeyMapper.<V1Pod>controllerOwner("apps/v1", "ReplicaSet").map(pod("a", "p"))).isEmpty();
        assertThat(KeyMapper.<V1Pod>controllerOwner("apps/v1", "ReplicaSet")
                .map(new V1Pod().metadata(new V1ObjectMeta().name("p")))).isEmpty();
    }
}
