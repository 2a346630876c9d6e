package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1Pod;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The memory-saving parts of decoding: same values, same equality, same bytes back. */
class CompactDecodingTest {

    private final KubernetesJson json = KubernetesJson.defaults();
    private final JsonMapper plainJackson = JsonMapper.builder().build();

    @Test
    void fieldsV1EqualsWhatPlainJacksonDecodesAndEncodesBackTheSame() {
        byte[] original = Fixtures.bytes("pod.json");
        V1Pod pod = json.decode(original, V1Pod.class);
        Map<?, ?> plainMeta = (Map<?, ?>) plainJackson.readValue(original, Map.class).get("metadata");
        List<?> plainManaged = (List<?>) plainMeta.get("managedFields");

        for (int i = 0; i < plainManaged.size(); i++) {
            Object fieldsV1 = pod.getMetadata().getManagedFields().get(i).getFieldsV1();
            Object expected = ((Map<?, ?>) plainManaged.get(i)).get("fieldsV1");
            assertThat(fieldsV1).isEqualTo(expected);
            assertThat(expected).isEqualTo(fieldsV1);
            assertThat(json.encode(fieldsV1)).isEqualTo(plainJackson.writeValueAsBytes(expected));
        }
    }

    @Test
    void fieldsV1KeepsDocumentOrderAndSharesItsEmptyLeaves() {
        V1ManagedFieldsEntry entry = json.decode(
                "{\"fieldsV1\":{\"f:z\":{},\"f:a\":{\".\":{},\"f:b\":{}},\"f:m\":{}}}".getBytes(StandardCharsets.UTF_8),
                V1ManagedFieldsEntry.class);

        Map<String, Object> fields = (Map<String, Object>) entry.getFieldsV1();
        assertThat(fields.keySet()).containsExactly("f:z", "f:a", "f:m");
        Map<String, Object> a = (Map<String, Object>) fields.get("f:a");
        assertThat(a.keySet()).containsExactly(".", "f:b");
        assertThat(fields.get("f:z")).isSameAs(fields.get("f:m")).isSameAs(a.get(".")).isEqualTo(Map.of());
        assertThatThrownBy(() -> ((Map<String, Object>) fields.get("f:z")).put("x", 1))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(new String(json.encode(entry), StandardCharsets.UTF_8))
                .isEqualTo("{\"fieldsV1\":{\"f:z\":{},\"f:a\":{\".\":{},\"f:b\":{}},\"f:m\":{}}}");
    }

    @Test
    void otherUntypedValuesStayMutableWithJacksonsScalarTypes() {
        String text = "{\"empty\":{},\"n\":{\"i\":1,\"l\":12345678901,\"b\":123456789012345678901234567890,"
                + "\"d\":1.5,\"t\":true,\"f\":false,\"z\":null,\"s\":\"x\"},\"a\":[1,{},[],\"y\"]}";
        Object value = json.decode(text.getBytes(StandardCharsets.UTF_8), Object.class);

        assertThat(value).isEqualTo(plainJackson.readValue(text, Object.class));
        Map<String, Object> map = (Map<String, Object>) value;
        assertThat(map).isInstanceOf(LinkedHashMap.class);
        ((Map<String, Object>) map.get("empty")).put("added", 1);
        Map<?, ?> n = (Map<?, ?>) map.get("n");
        assertThat(n.get("i")).isEqualTo(1);
        assertThat(n.get("l")).isEqualTo(12345678901L);
        assertThat(n.get("b")).isEqualTo(new BigInteger("123456789012345678901234567890"));
        assertThat(n.get("d")).isEqualTo(1.5d);
        assertThat(n.containsKey("z")).isTrue();
        assertThat(map.get("a")).isInstanceOf(ArrayList.class);
        ((List<Object>) map.get("a")).add("more");
        assertThat(new String(json.encode(plainJackson.readValue(text, Object.class)), StandardCharsets.UTF_8))
                .isEqualTo(text);
    }

    @Test
    void untypedMapsGrowPastTheirInitialSize() {
        StringBuilder text = new StringBuilder("{");
        for (int i = 0; i < 40; i++) {
            text.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":").append(i);
        }
        text.append('}');
        Map<String, Object> map = (Map<String, Object>) json.decode(
                text.toString().getBytes(StandardCharsets.UTF_8), Object.class);

        assertThat(map).hasSize(40).containsEntry("k0", 0).containsEntry("k39", 39);
        assertThat(map).isEqualTo(plainJackson.readValue(text.toString(), Object.class));
    }

    @Test
    void repeatedShortStringValuesAreOneInstanceAcrossObjects() {
        byte[] bytes = Fixtures.bytes("pod.json");
        V1Pod first = json.decode(bytes, V1Pod.class);
        V1Pod second = json.decode(bytes, V1Pod.class);

        assertThat(second).isEqualTo(first);
        assertThat(second.getSpec().getContainers().get(0).getImagePullPolicy())
                .isSameAs(first.getSpec().getContainers().get(0).getImagePullPolicy());
        assertThat(second.getMetadata().getLabels().get("tier")).isSameAs(first.getMetadata().getLabels().get("tier"));
        assertThat(second.getSpec().getContainers().get(0).getArgs()).isEqualTo(first.getSpec().getContainers().get(0).getArgs());
    }

    @Test
    void shortStringsAreLookedUpByTheirCharactersAndLongOnesAreNotShared() {
        String longValue = "x".repeat(StringValues.MAX_LENGTH + 1);
        // "Aa" and "BB" have the same hash, so the same slot; escapes and non-Latin-1 characters arrive decoded
        String labels = "{\"l1\":\"%s\",\"l2\":\"%s\",\"a1\":\"Aa\",\"a2\":\"Aa\",\"b\":\"BB\","
                + "\"u1\":\"\u00e9\u20ac\ud83d\ude00 tab\\t\",\"u2\":\"\\u00e9\u20ac\\ud83d\\ude00 tab\\t\"}";
        String text = "{\"metadata\":{\"labels\":" + labels.formatted(longValue, longValue) + "}}";
        Map<String, String> decoded = json.decode(text.getBytes(StandardCharsets.UTF_8), V1Pod.class)
                .getMetadata()
                .getLabels();

        assertThat(decoded).hasSize(7);
        assertThat(decoded.get("l1")).isEqualTo(longValue).isNotSameAs(decoded.get("l2"));
        assertThat(decoded.get("a1")).isEqualTo("Aa").isSameAs(decoded.get("a2"));
        assertThat(decoded.get("b")).as("a colliding hash is told apart by its characters").isEqualTo("BB");
        assertThat(decoded.get("u1")).isEqualTo("\u00e9\u20ac\ud83d\ude00 tab\t").isSameAs(decoded.get("u2"));
        Object untyped = json.decode(("[\"BB\",\"Aa\",\"" + longValue + "\"]").getBytes(StandardCharsets.UTF_8), Object.class);
        assertThat(untyped).isEqualTo(List.of("BB", "Aa", longValue));
        assertThat(((List<?>) untyped).get(0)).as("untyped values share the table").isSameAs(decoded.get("b"));
    }

    @Test
    void eachMapperHasItsOwnStringTable() {
        byte[] bytes = Fixtures.bytes("pod.json");
        V1Pod shared = json.decode(bytes, V1Pod.class);
        V1Pod own = KubernetesJson.of(KubernetesJson.mapperBuilder().build()).decode(bytes, V1Pod.class);

        String policy = shared.getSpec().getContainers().get(0).getImagePullPolicy();
        assertThat(own.getSpec().getContainers().get(0).getImagePullPolicy()).isEqualTo(policy).isNotSameAs(policy);
    }

    @Test
    void nonStringTokensIntoStringFieldsAreCoercedAsJacksonDoes() {
        V1Pod pod = json.decode("{\"metadata\":{\"name\":5,\"namespace\":true,\"labels\":{\"a\":1.5}}}"
                .getBytes(StandardCharsets.UTF_8), V1Pod.class);

        assertThat(pod.getMetadata().getName()).isEqualTo("5");
        assertThat(pod.getMetadata().getNamespace()).isEqualTo("true");
        assertThat(pod.getMetadata().getLabels()).containsEntry("a", "1.5");
    }
}
