package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.RawRequest;
import io.reactiveinformer.client.ResourceClient;

/** Server-side apply: fields a manager stops applying go, unless someone else changed them since. */
abstract class ApplyContract extends ClientContract {

    ApplyContract(Backend backend) {
        super(backend);
    }

    @Test
    void fieldsAManagerNoLongerAppliesAreRemoved() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("apply-remove"));
        await(maps.apply(configMap("c", Map.of("a", "1", "b", "2"), Map.of("x", "1", "y", "2")), "e2e-owner", false));

        V1ConfigMap reapplied = await(maps.apply(configMap("c", Map.of("a", "1"), Map.of("x", "1")), "e2e-owner", false));

        assertThat(reapplied.getData()).isEqualTo(Map.of("a", "1"));
        assertThat(reapplied.getMetadata().getLabels()).isEqualTo(Map.of("x", "1"));
    }

    @Test
    void fieldsSomeoneElseSetOrChangedStay() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("apply-keep"));
        await(maps.apply(configMap("c", Map.of("a", "1", "b", "2")), "e2e-owner", false));
        await(maps.patch("c", PatchType.MERGE, "{\"data\":{\"b\":\"changed\",\"c\":\"3\"}}"));

        V1ConfigMap reapplied = await(maps.apply(configMap("c", Map.of("a", "1")), "e2e-owner", false));

        assertThat(reapplied.getData()).isEqualTo(Map.of("a", "1", "b", "changed", "c", "3"));
    }

    @Test
    void anApplyWithoutAFieldManagerIsInvalid() {
        String ns = namespace("apply-manager");
        byte[] body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}"
                .getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> await(admin().raw(RawRequest.of("PATCH", "/api/v1/namespaces/" + ns + "/configmaps/c",
                PatchType.APPLY.contentType(), body))))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).contains("fieldManager: Required value: is required for apply patch");
                });
    }
}
