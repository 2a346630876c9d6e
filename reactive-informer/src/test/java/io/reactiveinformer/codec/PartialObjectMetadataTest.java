package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.reactiveinformer.api.PartialObjectMetadata;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PartialObjectMetadataTest {

    private final KubernetesJson json = KubernetesJson.defaults();

    @Test
    void encodesAsTheServerWritesIt() {
        PartialObjectMetadata object = new PartialObjectMetadata(new V1ObjectMeta().name("a").namespace("ns")
                .resourceVersion("7").labels(Map.of("app", "web")));

        assertThat(new String(json.encode(object), StandardCharsets.UTF_8)).isEqualTo(
                "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"PartialObjectMetadata\",\"metadata\":{\"labels\":"
                        + "{\"app\":\"web\"},\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"7\"}}");
    }

    @Test
    void decodesMetadataAndIgnoresTheRestOfAWholeObject() {
        byte[] configMap = ("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\","
                + "\"annotations\":{\"k\":\"v\"},\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"p\","
                + "\"uid\":\"u1\"}]},\"data\":{\"big\":\"xxxxxxxx\"}}").getBytes(StandardCharsets.UTF_8);

        PartialObjectMetadata decoded = json.decode(configMap, PartialObjectMetadata.class);

        assertThat(decoded.getKind()).isEqualTo("ConfigMap");
        assertThat(decoded.getMetadata().getAnnotations()).isEqualTo(Map.of("k", "v"));
        assertThat(decoded.getMetadata().getOwnerReferences()).extracting(V1OwnerReference::getUid)
                .isEqualTo(List.of("u1"));
        assertThat(json.decode(json.encode(decoded), PartialObjectMetadata.class)).isEqualTo(decoded);
    }
}
