package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.ResourceClient;
import reactor.test.StepVerifier;

/** The typed errors: 409 Conflict, 404 NotFound, 403 Forbidden, 410 Gone. */
abstract class ErrorContract extends ClientContract {

    ErrorContract(Backend backend) {
        super(backend);
    }

    @Test
    void replaceWithAStaleVersionAndCreateOfAnExistingNameConflict() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("conflict"));
        V1ConfigMap created = await(maps.create(configMap("c", Map.of("v", "1"))));
        await(maps.replace(await(maps.get("c")).data(Map.of("v", "2"))));

        assertThatThrownBy(() -> await(maps.replace(created.data(Map.of("v", "stale")))))
                .isInstanceOfSatisfying(KubernetesApiException.Conflict.class, e -> {
                    assertThat(e.code()).isEqualTo(409);
                    assertThat(e.reason()).isEqualTo("Conflict");
                    assertThat(e.isRetriable()).isFalse();
                });
        assertThatThrownBy(() -> await(maps.create(configMap("c", Map.of()))))
                .isInstanceOfSatisfying(KubernetesApiException.Conflict.class,
                        e -> assertThat(e.reason()).isEqualTo("AlreadyExists"));
        assertThat(await(maps.get("c")).getData()).containsEntry("v", "2");
    }

    @Test
    void missingObjectsAreNotFound() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("notfound"));

        for (Runnable request : List.<Runnable>of(
                () -> await(maps.get("missing")),
                () -> await(maps.delete("missing")),
                () -> await(maps.replace(configMap("missing", Map.of()))),
                () -> await(maps.patch("missing", PatchType.MERGE, "{\"data\":{\"a\":\"b\"}}")))) {
            assertThatThrownBy(request::run).isInstanceOfSatisfying(KubernetesApiException.NotFound.class, e -> {
                assertThat(e.code()).isEqualTo(404);
                assertThat(e.reason()).isEqualTo("NotFound");
                assertThat(e.status()).hasValueSatisfying(s -> assertThat(s.getDetails().getName()).isEqualTo("missing"));
            });
        }
    }

    @Test
    void theRestrictedIdentityIsForbidden() {
        String ns = namespace("forbidden");
        ResourceClient<V1ConfigMap> maps = backend().restricted().resource(V1ConfigMap.class).inNamespace(ns);

        StepVerifier.create(maps.list(ListOptions.none()))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(KubernetesApiException.Forbidden.class,
                        f -> {
                            assertThat(f.code()).isEqualTo(403);
                            assertThat(f.reason()).isEqualTo("Forbidden");
                            assertThat(f.isRetriable()).isFalse();
                        }))
                .verify(TIMEOUT);
        StepVerifier.create(maps.watch(WatchOptions.from("0").withTimeoutSeconds(5)))
                .expectError(KubernetesApiException.Forbidden.class)
                .verify(TIMEOUT);
        StepVerifier.create(maps.create(configMap("nope", Map.of())))
                .expectError(KubernetesApiException.Forbidden.class)
                .verify(TIMEOUT);
        assertThat(await(configMaps(ns).list(ListOptions.none())).items()).isEmpty();
    }

    @Test
    void versionsOlderThanTheCompactionAreGoneForWatchAndExactList() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("gone"));
        String old = await(maps.create(configMap("old", Map.of()))).getMetadata().getResourceVersion();
        await(maps.create(configMap("newer", Map.of())));

        backend().compact();

        StepVerifier.create(maps.watch(WatchOptions.from(old).withTimeoutSeconds(10)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(KubernetesApiException.Gone.class, g -> {
                    assertThat(g.code()).isEqualTo(410);
                    assertThat(g.reason()).isEqualTo("Expired");
                }))
                .verify(TIMEOUT);
        StepVerifier.create(maps.list(ListOptions.none().withResourceVersion(old, "Exact")))
                .expectError(KubernetesApiException.Gone.class)
                .verify(TIMEOUT);
        // the way out: a fresh list, and a watch from its version
        ObjectList<V1ConfigMap> fresh = await(maps.list(ListOptions.none()));
        assertThat(fresh.items()).extracting(m -> m.getMetadata().getName()).containsExactly("newer", "old");
        StepVerifier.create(maps.watch(WatchOptions.from(fresh.resourceVersion()).withTimeoutSeconds(1))
                        .filter(e -> e.type() != WatchEvent.Type.BOOKMARK))
                .expectComplete()
                .verify(TIMEOUT);
    }
}
