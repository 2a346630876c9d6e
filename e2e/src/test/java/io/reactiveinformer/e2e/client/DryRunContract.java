package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.ResourceClient;

/** {@code dryRun=All}: every write answers with its result and stores nothing. */
abstract class DryRunContract extends ClientContract {

    DryRunContract(Backend backend) {
        super(backend);
    }

    @Test
    void dryRunCreateAndApplyAnswerWithTheObjectAndStoreNothing() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("dry-create"));

        V1ConfigMap created = await(maps.dryRun().create(configMap("c", Map.of("a", "1"))));
        V1ConfigMap applied = await(maps.dryRun().apply(configMap("a", Map.of("k", "v")), "e2e-test", false));

        assertThat(created.getMetadata().getName()).isEqualTo("c");
        assertThat(created.getMetadata().getUid()).isNotEmpty();
        assertThat(created.getMetadata().getCreationTimestamp()).isNotNull();
        assertThat(created.getMetadata().getResourceVersion()).as("nothing was stored").isNull();
        assertThat(created.getData()).isEqualTo(Map.of("a", "1"));
        assertThat(applied.getData()).isEqualTo(Map.of("k", "v"));
        assertThat(await(maps.list(ListOptions.none())).items()).isEmpty();
        assertThatThrownBy(() -> await(maps.get("c"))).isInstanceOf(KubernetesApiException.NotFound.class);
    }

    @Test
    void dryRunReplaceAndPatchAnswerWithTheChangeAndLeaveTheObject() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("dry-update"));
        V1ConfigMap stored = await(maps.create(configMap("c", Map.of("a", "1"))));

        V1ConfigMap replaced = await(maps.dryRun().replace(await(maps.get("c")).data(Map.of("a", "2"))));
        V1ConfigMap patched = await(maps.dryRun().patch("c", PatchType.MERGE, "{\"data\":{\"b\":\"3\"}}"));
        V1ConfigMap applied = await(maps.dryRun().apply(configMap("c", Map.of("a", "4")), "e2e-test", true));
        V1ConfigMap after = await(maps.get("c"));

        assertThat(replaced.getData()).isEqualTo(Map.of("a", "2"));
        assertThat(patched.getData()).isEqualTo(Map.of("a", "1", "b", "3"));
        assertThat(applied.getData()).containsEntry("a", "4");
        assertThat(after.getData()).isEqualTo(Map.of("a", "1"));
        assertThat(after.getMetadata().getResourceVersion()).isEqualTo(stored.getMetadata().getResourceVersion());
    }

    @Test
    void dryRunDeleteAndDeleteCollectionKeepEverything() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("dry-delete"));
        V1ConfigMap stored = await(maps.create(configMap("c", Map.of("a", "1"))));
        await(maps.create(configMap("d", Map.of("a", "1"))));

        await(maps.dryRun().delete("c"));
        await(maps.dryRun().delete("c", DeleteOptions.none().withPropagation(DeleteOptions.Propagation.FOREGROUND)));
        await(maps.dryRun().deleteCollection(DeleteOptions.none()));

        assertThat(await(maps.list(ListOptions.none())).items()).extracting(m -> m.getMetadata().getName())
                .containsExactly("c", "d");
        V1ConfigMap after = await(maps.get("c"));
        assertThat(after.getMetadata().getResourceVersion()).isEqualTo(stored.getMetadata().getResourceVersion());
        assertThat(after.getMetadata().getDeletionTimestamp()).isNull();
        assertThat(after.getMetadata().getFinalizers()).isNullOrEmpty();
    }
}
