package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class WatchEventDecoderTest {

    private static final byte[] STREAM = Fixtures.bytes("watch-stream.jsonl");
    private final KubernetesJson json = KubernetesJson.defaults();

    @Test
    void decodesEveryEventTypeInOrder() {
        List<WatchEvent<V1Pod>> events = decode(STREAM, new int[0]);

        assertThat(events).extracting(WatchEvent::type).containsExactly(
                WatchEvent.Type.ADDED, WatchEvent.Type.MODIFIED, WatchEvent.Type.BOOKMARK, WatchEvent.Type.DELETED);
        assertThat(events.get(1).object().getMetadata().getLabels()).containsEntry("tier", "web");
        V1Pod bookmark = events.get(2).object();
        assertThat(bookmark.getMetadata().getResourceVersion()).isEqualTo("184502");
        assertThat(bookmark.getMetadata().getAnnotations()).containsEntry("k8s.io/initial-events-end", "true");
        assertThat(events.get(3).object().getMetadata().getDeletionTimestamp()).isNotNull();
    }

    /** A chunk boundary anywhere, including inside a multi-byte character or a token, changes nothing. */
    @Test
    void everySingleSplitPointGivesTheSameEvents() {
        List<WatchEvent<V1Pod>> expected = decode(STREAM, new int[0]);
        for (int split = 0; split <= STREAM.length; split++) {
            assertThat(decode(STREAM, new int[] {split})).as("split at %d", split).isEqualTo(expected);
        }
    }

    @Property(tries = 200)
    void anySplitsGiveTheSameEvents(@ForAll @Size(max = 40) List<@IntRange(min = 0, max = 16071) Integer> splits) {
        int[] points = splits.stream().mapToInt(i -> Math.min(i, STREAM.length)).sorted().toArray();
        assertThat(decode(STREAM, points)).isEqualTo(decode(STREAM, new int[0]));
    }

    @Test
    void oneByteAtATime() {
        int[] points = new int[STREAM.length];
        Arrays.setAll(points, i -> i);
        assertThat(decode(STREAM, points)).hasSize(4);
    }

    @Test
    void errorEventThrowsGoneAfterTheEventsBeforeIt() {
        List<WatchEvent<V1Pod>> seen = new ArrayList<>();
        WatchEventDecoder<V1Pod> decoder = new WatchEventDecoder<>(json, V1Pod.class, "GET /api/v1/pods?watch=true");

        assertThatThrownBy(() -> decoder.feed(ByteBuffer.wrap(Fixtures.bytes("watch-error-410.jsonl")), seen::add))
                .isInstanceOfSatisfying(KubernetesApiException.Gone.class, gone -> {
                    assertThat(gone.code()).isEqualTo(410);
                    assertThat(gone.reason()).isEqualTo("Expired");
                    assertThat(gone.getMessage()).contains("GET /api/v1/pods?watch=true", "too old resource version");
                });
        assertThat(seen).hasSize(1);
    }

    @Test
    void unknownEventTypeIsADecodeError() {
        assertThatThrownBy(() -> decode(line("{\"type\":\"RENAMED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}"), new int[0]))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("unknown watch event type \"RENAMED\"");
    }

    @Test
    void objectWithoutMetadataIsADecodeError() {
        assertThatThrownBy(() -> decode(line("{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"spec\":{}}}"), new int[0]))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("ADDED object has no metadata");
    }

    @Test
    void objectWithoutANameIsADecodeError() {
        // what a protobuf object without metadata decodes to: its metadata message is always there, if empty
        assertThatThrownBy(() -> decode(line("{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"namespace\":\"x\"}}}"),
                new int[0]))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("MODIFIED object has no metadata.name");
    }

    @Test
    void eventWithoutObjectIsADecodeError() {
        assertThatThrownBy(() -> decode(line("{\"type\":\"ADDED\"}"), new int[0]))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("without an object");
    }

    @Test
    void invalidJsonNamesThePosition() {
        assertThatThrownBy(() -> decode(line("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":}}}"), new int[0]))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("malformed JSON")
                .hasMessageContaining("at byte")
                .hasMessageContaining("line 1, column");
    }

    @Test
    void streamCutMidObjectIsADecodeErrorNotACompletion() {
        byte[] cut = Arrays.copyOf(STREAM, 20_00);
        assertThatThrownBy(() -> decode(cut, new int[0]))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("GET /watch");
    }

    @Test
    void unknownEventFieldsAreSkipped() {
        assertThat(decode(line("{\"type\":\"ADDED\",\"extra\":{\"a\":[{}]},\"object\":{\"metadata\":{\"name\":\"a\"}},\"n\":1}"),
                new int[0])).hasSize(1);
    }

    @Test
    void anObjectBeforeItsTypeAndBracketsInStringsAreDecoded() {
        List<WatchEvent<V1Pod>> events = decode(line("{\"object\":{\"metadata\":{\"name\":\"a}{\\\"\"}},\"type\":\"MODIFIED\"}"),
                new int[0]);

        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(WatchEvent.Type.MODIFIED);
            assertThat(e.object().getMetadata().getName()).isEqualTo("a}{\"");
        });
    }

    @Test
    void anErrorOnALaterLineNamesThatLine() {
        byte[] twoLines = (new String(line("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}"),
                StandardCharsets.UTF_8) + "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":tru}}}\n")
                .getBytes(StandardCharsets.UTF_8);
        List<WatchEvent<V1Pod>> before = new ArrayList<>();
        WatchEventDecoder<V1Pod> decoder = new WatchEventDecoder<>(json, V1Pod.class, "GET /watch");

        assertThatThrownBy(() -> decoder.feed(ByteBuffer.wrap(twoLines), before::add))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("malformed JSON")
                .hasMessageContaining("line 2, column");
        assertThat(before).as("the event before the malformed one").hasSize(1);
    }

    @Test
    void contentBetweenEventsThatIsNoObjectIsMalformed() {
        assertThatThrownBy(() -> decode(line("[1]"), new int[0]))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("expected a watch event object, found '['");
    }

    private List<WatchEvent<V1Pod>> decode(byte[] bytes, int[] splits) {
        WatchEventDecoder<V1Pod> decoder = new WatchEventDecoder<>(json, V1Pod.class, "GET /watch");
        List<WatchEvent<V1Pod>> events = new ArrayList<>();
        int from = 0;
        for (int split : splits) {
            decoder.feed(ByteBuffer.wrap(bytes, from, split - from), events::add);
            from = split;
        }
        decoder.feed(ByteBuffer.wrap(bytes, from, bytes.length - from), events::add);
        decoder.end();
        return events;
    }

    private static byte[] line(String s) {
        return (s + "\n").getBytes(StandardCharsets.UTF_8);
    }
}
