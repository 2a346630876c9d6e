package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.client.RawRequest;
import io.reactiveinformer.client.ResourceClient;
import tools.jackson.databind.JsonNode;

/** DELETE: its answer, preconditions, propagation policies, grace periods, and deleteCollection with selectors. */
abstract class DeleteContract extends ClientContract {

    DeleteContract(Backend backend) {
        super(backend);
    }

    @Test
    void completedDeleteAnswersWithAStatusForConfigMapsAndWithTheObjectForPods() {
        String ns = namespace("delete-answer");
        V1ConfigMap map = await(configMaps(ns).create(configMap("c", Map.of())));
        await(pods(ns).create(pod("p", null)));

        JsonNode status = rawDelete("/api/v1/namespaces/" + ns + "/configmaps/c");
        JsonNode pod = rawDelete("/api/v1/namespaces/" + ns + "/pods/p");

        assertThat(status.path("kind").asString()).isEqualTo("Status");
        assertThat(status.path("status").asString()).isEqualTo("Success");
        assertThat(status.path("details").path("name").asString()).isEqualTo("c");
        assertThat(status.path("details").path("kind").asString()).isEqualTo("configmaps");
        assertThat(status.path("details").path("uid").asString()).isEqualTo(map.getMetadata().getUid());
        assertThat(pod.path("kind").asString()).isEqualTo("Pod");
        assertThat(pod.path("metadata").path("name").asString()).isEqualTo("p");
        assertThatThrownBy(() -> await(pods(ns).get("p"))).isInstanceOf(KubernetesApiException.NotFound.class);
    }

    @Test
    void preconditionsThatDoNotHoldConflictAndChangeNothing() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("delete-pre"));
        V1ConfigMap map = await(maps.create(configMap("c", Map.of())));
        String uid = map.getMetadata().getUid();
        String rv = map.getMetadata().getResourceVersion();

        assertThatThrownBy(() -> await(maps.delete("c", DeleteOptions.none().withPreconditions("not-the-uid", null))))
                .isInstanceOfSatisfying(KubernetesApiException.Conflict.class, e -> assertThat(e.getMessage())
                        .contains("Operation cannot be fulfilled on ConfigMap \"c\": the UID in the precondition "
                                + "(not-the-uid) does not match the UID in record (" + uid + ")"));
        assertThatThrownBy(() -> await(maps.delete("c", DeleteOptions.none().withPreconditions(null, "1"))))
                .isInstanceOfSatisfying(KubernetesApiException.Conflict.class, e -> assertThat(e.getMessage())
                        .contains("the ResourceVersion in the precondition (1) does not match the ResourceVersion in "
                                + "record (" + rv + ")"));
        assertThat(await(maps.get("c")).getMetadata().getResourceVersion()).isEqualTo(rv);

        await(maps.delete("c", DeleteOptions.none().withPreconditions(uid, rv)));
        assertThatThrownBy(() -> await(maps.get("c"))).isInstanceOf(KubernetesApiException.NotFound.class);
    }

    @Test
    void foregroundAndOrphanPropagationKeepTheObjectWithTheirFinalizer() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("delete-propagation"));
        await(maps.create(configMap("fg", Map.of())));
        await(maps.create(configMap("orphan", Map.of())));
        await(maps.create(configMap("bg", Map.of())));

        await(maps.delete("fg", DeleteOptions.none().withPropagation(DeleteOptions.Propagation.FOREGROUND)));
        await(maps.delete("orphan", DeleteOptions.none().withPropagation(DeleteOptions.Propagation.ORPHAN)));
        await(maps.delete("bg", DeleteOptions.none().withPropagation(DeleteOptions.Propagation.BACKGROUND)));

        V1ConfigMap fg = await(maps.get("fg"));
        V1ConfigMap orphan = await(maps.get("orphan"));
        assertThat(fg.getMetadata().getFinalizers()).containsExactly("foregroundDeletion");
        assertThat(fg.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(fg.getMetadata().getDeletionGracePeriodSeconds()).isZero();
        assertThat(orphan.getMetadata().getFinalizers()).containsExactly("orphan");
        assertThat(orphan.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThatThrownBy(() -> await(maps.get("bg"))).isInstanceOf(KubernetesApiException.NotFound.class);
    }

    @Test
    void aScheduledPodTerminatesForItsGracePeriodUntilDeletedWithZero() {
        ResourceClient<V1Pod> pods = pods(namespace("delete-grace"));
        await(pods.create(pod("p", "node-a")));

        await(pods.delete("p", DeleteOptions.none().withGracePeriod(Duration.ofSeconds(45))));
        V1Pod terminating = await(pods.get("p"));
        await(pods.delete("p", DeleteOptions.none().withGracePeriod(Duration.ofSeconds(60))));
        V1Pod unchanged = await(pods.get("p"));
        await(pods.delete("p", DeleteOptions.none().withGracePeriod(Duration.ZERO)));

        assertThat(terminating.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(45L);
        assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(terminating.getMetadata().getGeneration()).isEqualTo(2L);
        assertThat(unchanged.getMetadata().getResourceVersion())
                .as("a longer grace period changes nothing").isEqualTo(terminating.getMetadata().getResourceVersion());
        assertThatThrownBy(() -> await(pods.get("p"))).isInstanceOf(KubernetesApiException.NotFound.class);
    }

    @Test
    void deleteCollectionDeletesWhatTheSelectorsMatch() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("delete-collection"));
        for (String name : List.of("a", "b", "c", "d")) {
            await(maps.create(configMap(name, Map.of(), Map.of("app", name.equals("d") ? "other" : "web"))));
        }

        await(maps.withLabelSelector("app=web").withFieldSelector("metadata.name!=b")
                .deleteCollection(DeleteOptions.none()));

        assertThat(await(maps.list(ListOptions.none())).items()).extracting(m -> m.getMetadata().getName())
                .containsExactly("b", "d");
    }

    ResourceClient<V1Pod> pods(String namespace) {
        return admin().resource(V1Pod.class).inNamespace(namespace);
    }

    static V1Pod pod(String name, String nodeName) {
        return new V1Pod().apiVersion("v1").kind("Pod").metadata(new V1ObjectMeta().name(name))
                .spec(new V1PodSpec().nodeName(nodeName)
                        .containers(List.of(new V1Container().name("c").image("example/e2e:1"))));
    }

    private JsonNode rawDelete(String path) {
        return admin().json().mapper().readTree(await(admin().raw(new RawRequest("DELETE", path, null, null, null)))
                .body());
    }
}
