package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ObjectListDecoderTest {

    private static final byte[] PAGE = Fixtures.bytes("pod-list-page1.json");
    private final KubernetesJson json = KubernetesJson.defaults();

    @Test
    void decodesPageWithContinueToken() {
        ObjectList<V1Pod> page = decode(PAGE, -1);

        assertThat(page.items()).extracting(p -> p.getMetadata().getName())
                .containsExactly("web-7d4b9c8f6d-00000", "web-7d4b9c8f6d-00001", "web-7d4b9c8f6d-00002");
        assertThat(page.resourceVersion()).isEqualTo("184500");
        assertThat(page.continueToken()).startsWith("eyJ2Ijoi");
        assertThat(page.remainingItemCount()).isEqualTo(2L);
        assertThat(page.hasMore()).isTrue();
        assertThat(decode(Fixtures.bytes("pod-list-page2.json"), -1).hasMore()).isFalse();
    }

    /** kube-apiserver with ShardedListAndWatch echoes the selector it applied; without the gate, no shardInfo. */
    @Test
    void readsTheShardSelectorEcho() {
        String selector = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
        ObjectList<V1Pod> sharded = decode(utf8("{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"7\","
                + "\"shardInfo\":{\"selector\":\"" + selector + "\"}},\"items\":[]}"), -1);

        assertThat(sharded.shardSelector()).isEqualTo(selector);
        assertThat(sharded.resourceVersion()).isEqualTo("7");
        assertThat(decode(PAGE, -1).shardSelector()).isNull();
    }

    @Test
    void everySingleSplitPointGivesTheSamePage() {
        ObjectList<V1Pod> expected = decode(PAGE, -1);
        for (int split = 0; split <= PAGE.length; split++) {
            assertThat(decode(PAGE, split)).as("split at %d", split).isEqualTo(expected);
        }
    }

    @Test
    void listCutInsideAnItemIsADecodeError() {
        assertThatThrownBy(() -> decode(Arrays.copyOf(PAGE, 9000), -1))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("GET /api/v1/pods");
    }

    @Test
    void roundTripsThroughTheEncoder() {
        ObjectList<V1Pod> page = decode(PAGE, -1);
        Map<String, Object> list = new LinkedHashMap<>();
        list.put("kind", "PodList");
        list.put("apiVersion", "v1");
        list.put("metadata", new V1ListMeta().resourceVersion(page.resourceVersion())._continue(page.continueToken())
                .remainingItemCount(page.remainingItemCount()));
        list.put("items", page.items());
        byte[] encoded = json.encode(list);
        assertThat(decode(encoded, -1)).isEqualTo(page);
    }

    @Test
    void emptyListHasNoItems() {
        ObjectList<V1Pod> empty = decode("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"9\"},\"items\":[]}"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8), -1);
        assertThat(empty.items()).isEmpty();
        assertThat(empty.resourceVersion()).isEqualTo("9");
        assertThat(List.copyOf(empty.items())).isEmpty();
    }

    private static final String TRICKY = """
            {"kind":"PodList","apiVersion":"v1","items":[ {"metadata":{"name":"a","annotations":{"x":"}]\\"{[","y":"\\\\"}}},
             {"metadata":{"name":"b","labels":{"items":"[{"}},"spec":{"containers":[{"name":"c","args":["]","}"]}]}}
            ] , "metadata":{"resourceVersion":"7","items":[1]}}""";

    @Test
    void bracketsAndQuotesInsideStringsDoNotEndAnItemAtAnySplitPoint() {
        byte[] bytes = TRICKY.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ObjectList<V1Pod> page = decode(bytes, -1);

        assertThat(page.items()).extracting(p -> p.getMetadata().getName()).containsExactly("a", "b");
        assertThat(page.items().get(0).getMetadata().getAnnotations()).containsEntry("x", "}]\"{[").containsEntry("y", "\\");
        assertThat(page.items().get(1).getSpec().getContainers().get(0).getArgs()).containsExactly("]", "}");
        assertThat(page.resourceVersion()).as("metadata after the items").isEqualTo("7");
        for (int split = 0; split <= bytes.length; split++) {
            assertThat(decode(bytes, split)).as("split at %d", split).isEqualTo(page);
        }
    }

    @Test
    void anItemsKeyTheScannerDoesNotRecogniseIsStillDecoded() {
        ObjectList<V1Pod> page = decode(utf8("{\"\\u0069tems\":[{\"metadata\":{\"name\":\"a\"}}],\"metadata\":{}}"), -1);

        assertThat(page.items()).extracting(p -> p.getMetadata().getName()).containsExactly("a");
    }

    @Test
    void malformedListsAreDecodeErrorsNamingWhatIsWrong() {
        assertThatThrownBy(() -> decode(utf8("{\"items\":[{\"metadata\":{}} {\"metadata\":{}}]}"), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("expected ',' or ']' after an item");
        assertThatThrownBy(() -> decode(utf8("{\"items\":[{},]}"), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("expected an object in \"items\", found ']'");
        assertThatThrownBy(() -> decode(utf8("{\"items\":[1]}"), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("expected an object in \"items\", found '1'");
        assertThatThrownBy(() -> decode(utf8("{\"kind\": PodList, \"items\":[]}"), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("GET /api/v1/pods: malformed JSON");
        assertThatThrownBy(() -> decode(utf8("{\"items\":[]} {}"), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("unexpected content after the list object");
        assertThatThrownBy(() -> decode(utf8("{\"items\":[{\"metadata\":{\"name\":}}]}"), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("cannot decode item 0 as V1Pod")
                .hasMessageContaining("(at byte 30)");
        assertThatThrownBy(() -> decode(utf8("[]"), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("expected a list object");
        assertThatThrownBy(() -> decode(utf8(""), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("the response held no list object");
        assertThatThrownBy(() -> decode(utf8("{\"items\":[]"), -1))
                .isInstanceOf(DecodeException.class).hasMessageContaining("input ended inside the list object");
    }

    @Test
    void internsEachItemAsSoonAsItIsBound() {
        V1Pod held = new V1Pod();
        List<String> seen = new ArrayList<>();
        ObjectListDecoder<V1Pod> decoder = new ObjectListDecoder<>(json, V1Pod.class, "GET /api/v1/pods", pod -> {
            seen.add(pod.getMetadata().getName());
            return seen.size() == 1 ? held : pod;
        });

        List<V1Pod> bound = decoder.bind(decoder.feed(ByteBuffer.wrap(PAGE)));

        assertThat(seen).hasSize(bound.size()).hasSizeGreaterThan(1);
        assertThat(bound.get(0)).isSameAs(held);
        assertThat(bound.subList(1, bound.size())).extracting(pod -> pod.getMetadata().getName())
                .containsExactlyElementsOf(seen.subList(1, seen.size()));
        assertThat(decoder.end(bound).items().get(0)).isSameAs(held);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private ObjectList<V1Pod> decode(byte[] bytes, int split) {
        ObjectListDecoder<V1Pod> decoder = new ObjectListDecoder<>(json, V1Pod.class, "GET /api/v1/pods");
        List<V1Pod> items = new ArrayList<>();
        if (split >= 0) {
            items.addAll(decoder.bind(decoder.feed(ByteBuffer.wrap(bytes, 0, split))));
            items.addAll(decoder.bind(decoder.feed(ByteBuffer.wrap(bytes, split, bytes.length - split))));
        } else {
            items.addAll(decoder.bind(decoder.feed(ByteBuffer.wrap(bytes))));
        }
        return decoder.end(items);
    }
}
