package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ValueDecoderTest {

    private static final byte[] POD = """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","namespace":"shop","annotations":{"note":"}{\\"]"}},
             "spec":{"containers":[{"name":"app","image":"nginx","args":["[","}"]}]}}
            """.getBytes(StandardCharsets.UTF_8);
    private final KubernetesJson json = KubernetesJson.defaults();

    @Test
    void everySingleSplitPointGivesTheSameObject() {
        V1Pod expected = decode(POD, -1);

        assertThat(expected.getMetadata().getAnnotations()).containsEntry("note", "}{\"]");
        assertThat(expected.getSpec().getContainers().get(0).getArgs()).containsExactly("[", "}");
        for (int split = 0; split <= POD.length; split++) {
            assertThat(decode(POD, split)).as("split at %d", split).isEqualTo(expected);
        }
    }

    @Test
    void anythingButOneObjectIsADecodeError() {
        assertThatThrownBy(() -> decode("".getBytes(StandardCharsets.UTF_8), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("GET /pod: the response held no V1Pod");
        assertThatThrownBy(() -> decode("{\"metadata\":{}".getBytes(StandardCharsets.UTF_8), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("input ended inside the V1Pod");
        assertThatThrownBy(() -> decode("{} {}".getBytes(StandardCharsets.UTF_8), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("unexpected content after the V1Pod");
        assertThatThrownBy(() -> decode("[]".getBytes(StandardCharsets.UTF_8), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("expected a V1Pod object");
        assertThatThrownBy(() -> decode("{\"metadata\":{\"name\":nul}}".getBytes(StandardCharsets.UTF_8), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("malformed JSON");
        assertThatThrownBy(() -> decode("{\"metadata\":[1]}".getBytes(StandardCharsets.UTF_8), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("cannot decode V1Pod");
    }

    private V1Pod decode(byte[] bytes, int split) {
        ValueDecoder<V1Pod> decoder = new ValueDecoder<>(json, V1Pod.class, "GET /pod");
        if (split >= 0) {
            decoder.feed(ByteBuffer.wrap(bytes, 0, split));
            decoder.feed(ByteBuffer.wrap(bytes, split, bytes.length - split));
        } else {
            decoder.feed(ByteBuffer.wrap(bytes));
        }
        return decoder.end();
    }
}
