package io.reactiveinformer.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.reactiveinformer.api.ResourceType;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnerReferencesTest {

    private static V1ReplicaSet owner(String namespace, String name) {
        return new V1ReplicaSet().metadata(new V1ObjectMeta().namespace(namespace).name(name).uid("uid-" + name));
    }

    private static V1ConfigMap owned(String namespace, V1OwnerReference... references) {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace(namespace).name("settings")
                .ownerReferences(references.length == 0 ? null : List.of(references)));
    }

    @Test
    void theOwnerBecomesTheControllerWithItsApiVersionAndKind() {
        V1ConfigMap owned = OwnerReferences.setControllerReference(owner("shop", "web"), owned("shop"));

        assertThat(owned.getMetadata().getOwnerReferences()).singleElement().satisfies(r -> {
            assertThat(r.getApiVersion()).as("from the model class: objects of a list have none").isEqualTo("apps/v1");
            assertThat(r.getKind()).isEqualTo("ReplicaSet");
            assertThat(r.getName()).isEqualTo("web");
            assertThat(r.getUid()).isEqualTo("uid-web");
            assertThat(r.getController()).isTrue();
            assertThat(r.getBlockOwnerDeletion()).isTrue();
        });
    }

    @Test
    void settingItAgainChangesNothingAndOtherOwnersStay() {
        V1OwnerReference other = new V1OwnerReference().apiVersion("v1").kind("Pod").name("p").uid("uid-p");
        V1OwnerReference older = new V1OwnerReference().apiVersion("apps/v1beta2").kind("ReplicaSet").name("web")
                .uid("uid-web").controller(true);
        V1ConfigMap owned = owned("shop", other, older);

        OwnerReferences.setControllerReference(owner("shop", "web"), owned);
        List<V1OwnerReference> once = List.copyOf(owned.getMetadata().getOwnerReferences());
        OwnerReferences.setControllerReference(owner("shop", "web"), owned);

        assertThat(owned.getMetadata().getOwnerReferences()).isEqualTo(once).hasSize(2);
        assertThat(once.get(0)).isEqualTo(other);
        assertThat(once.get(1).getApiVersion()).as("the same object, in the owner's version").isEqualTo("apps/v1");
    }

    @Test
    void anotherControllerIsRefused() {
        V1OwnerReference db = new V1OwnerReference().apiVersion("apps/v1").kind("ReplicaSet").name("db")
                .uid("uid-db").controller(true);
        V1ConfigMap owned = owned("shop", db);

        assertThatThrownBy(() -> OwnerReferences.setControllerReference(owner("shop", "web"), owned))
                .isInstanceOfSatisfying(OwnerReferences.AlreadyControlledException.class,
                        e -> assertThat(e.controller()).isEqualTo(db))
                .hasMessageContaining("shop/settings is already controlled by ReplicaSet db");
        assertThat(owned.getMetadata().getOwnerReferences()).containsExactly(db);
    }

    @Test
    void aNamespacedOwnerOwnsOnlyObjectsOfItsNamespace() {
        assertThatThrownBy(() -> OwnerReferences.setControllerReference(owner("shop", "web"), owned("other")))
                .isInstanceOf(OwnerReferences.CrossNamespaceException.class);
        assertThatThrownBy(() -> OwnerReferences.setControllerReference(owner("shop", "web"), owned(null)))
                .isInstanceOf(OwnerReferences.CrossNamespaceException.class);
        assertThatThrownBy(() -> OwnerReferences.setControllerReference(owner("shop", "web").metadata(
                new V1ObjectMeta().namespace("shop").name("web")), owned("shop")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uid");
    }

    @Test
    void theControllerOwnerMapperMapsWhatTheHelperWritesBackToTheOwner() {
        V1ReplicaSet web = owner("shop", "web");
        V1ConfigMap owned = OwnerReferences.setControllerReference(web, owned("shop"));
        assertThat(KeyMapper.<V1ConfigMap>controllerOwner("apps/v1", "ReplicaSet").map(owned))
                .containsExactly(Request.of(web));
        assertThat(KeyMapper.<V1ConfigMap>controllerOwner(ResourceType.of(V1ReplicaSet.class)).map(owned))
                .containsExactly(Request.of(web));

        V1Namespace shop = new V1Namespace().metadata(new V1ObjectMeta().name("shop").uid("uid-shop"));
        V1ConfigMap ownedByNamespace = OwnerReferences.setControllerReference(shop, owned("shop"));
        assertThat(KeyMapper.<V1ConfigMap>controllerOwner(ResourceType.of(V1Namespace.class)).map(ownedByNamespace))
                .as("a cluster-scoped owner of a namespaced object").containsExactly(Request.of(shop));
    }
}
