package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1Pod;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code fieldsV1} kept as bytes: the same map when read, the same JSON when encoded, read or not. */
class LazyJsonMapTest {

    private static final String FIELDS = "{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}}},"
            + "\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},\"f:status\":{}}}}}";

    private final KubernetesJson json = KubernetesJson.defaults();
    private final JsonMapper plainJackson = JsonMapper.builder().build();

    private V1ManagedFieldsEntry entry() {
        return json.decode(("{\"manager\":\"kubelet\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":" + FIELDS + "}")
                .getBytes(StandardCharsets.UTF_8), V1ManagedFieldsEntry.class);
    }

    @Test
    void aDecodedFieldSetIsKeptAsBytesAndEncodedBackUnreadAsTheSameJson() {
        byte[] original = Fixtures.bytes("pod.json");
        V1Pod pod = json.decode(original, V1Pod.class);

        assertThat(pod.getMetadata().getManagedFields()).isNotEmpty()
                .allSatisfy(e -> assertThat(e.getFieldsV1()).isInstanceOf(LazyJsonMap.class));
        assertThat(plainJackson.readTree(json.encode(pod)).at("/metadata/managedFields"))
                .isEqualTo(plainJackson.readTree(original).at("/metadata/managedFields"));
    }

    @Test
    void readItIsTheMapPlainJacksonDecodesInDocumentOrderEqualBothWays() {
        Map<String, Object> fields = (Map<String, Object>) entry().getFieldsV1();
        Map<String, Object> plain = plainJackson.readValue(FIELDS, Map.class);

        assertThat(fields).isEqualTo(plain);
        assertThat(plain).isEqualTo(fields);
        assertThat(fields.hashCode()).isEqualTo(plain.hashCode());
        assertThat(fields.keySet()).containsExactly("f:metadata", "f:status");
        assertThat(fields.toString()).isEqualTo(plain.toString());
        assertThat(entry()).isEqualTo(entry()).hasSameHashCodeAs(entry());
    }

    @Test
    void aChangeToTheReadMapIsWhatGetsEncoded() {
        V1ManagedFieldsEntry entry = entry();
        Map<String, Object> fields = (Map<String, Object>) entry.getFieldsV1();
        ((Map<String, Object>) fields.get("f:metadata")).put("f:annotations", new LinkedHashMap<>());
        fields.remove("f:status");

        assertThat(plainJackson.readTree(json.encode(entry)).get("fieldsV1"))
                .isEqualTo(plainJackson.readTree("{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}},\"f:annotations\":{}}}"));
    }

    @Test
    void convertingToATreeGivesTheFieldsAsNodesNotAsAnOpaqueValue() {
        JsonNode tree = json.mapper().valueToTree(entry());

        assertThat(tree.get("fieldsV1")).isEqualTo(plainJackson.readTree(FIELDS));
        assertThat(json.mapper().convertValue(entry(), Map.class).get("fieldsV1")).isEqualTo(plainJackson.readValue(FIELDS, Map.class));
    }

    @Test
    void anObjectWhoseOpeningBraceACallerTookIsCopiedFromItsFirstName() {
        try (JsonParser p = plainJackson.createParser("{\"a\":{},\"b\":{\"c\":{}}} tail")) {
            p.nextToken();
            p.nextToken();
            LazyJsonMap map = LazyJsonMap.read(p, new UntypedValueDeserializer(new StringValues()));

            assertThat(p.currentToken()).isEqualTo(JsonToken.END_OBJECT);
            assertThat(map).isEqualTo(Map.of("a", Map.of(), "b", Map.of("c", Map.of())));
        }
    }

    @Test
    void threadsReadingItFirstAtOnceAllSeeTheSameMap() throws Exception {
        Map<String, Object> fields = (Map<String, Object>) entry().getFieldsV1();
        Map<String, Object> plain = plainJackson.readValue(FIELDS, Map.class);
        CyclicBarrier start = new CyclicBarrier(4);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Object>> reads = threads.invokeAll(IntStream.range(0, 4).<Callable<Object>>mapToObj(i -> () -> {
                start.await();
                return fields.get("f:status");
            }).toList());

            for (Future<Object> read : reads) {
                assertThat(read.get()).isEqualTo(plain.get("f:status"));
            }
        } finally {
            threads.shutdown();
        }
    }
}
