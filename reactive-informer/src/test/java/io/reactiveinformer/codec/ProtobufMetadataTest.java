package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveinformer.api.PartialObjectMetadata;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code meta.k8s.io/v1 PartialObjectMetadata} in protobuf decodes as its JSON does, both as kube-apiserver 1.36
 * wrote them for a pod and for a custom resource ({@code fixtures/protobuf/metadata-*}, captured by
 * {@code capture-metadata.sh}).
 */
class ProtobufMetadataTest {

    private final KubernetesJson json = KubernetesJson.defaults();
    private final ProtobufCodec protobuf = new ProtobufCodec(json);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"metadata-pod", "metadata-gadget"})
    void anObjectDecodesAsItsJson(String name) {
        PartialObjectMetadata fromJson = json.decode(Fixtures.bytes("protobuf/" + name + ".json"),
                PartialObjectMetadata.class);
        PartialObjectMetadata fromProtobuf = protobuf.decode(Fixtures.bytes("protobuf/" + name + ".pb"),
                PartialObjectMetadata.class);

        assertThat(fromProtobuf).isEqualTo(fromJson);
        assertThat(fromProtobuf.getKind()).isEqualTo(PartialObjectMetadata.KIND);
        assertThat(fromProtobuf.getApiVersion()).isEqualTo(PartialObjectMetadata.API_VERSION);
        assertThat(fromProtobuf.getMetadata().getManagedFields()).isNotEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"metadata-pod-watch", "metadata-gadget-watch", "metadata-pod-watchlist", "metadata-gadget-watchlist"})
    void aWatchGivesTheEventsOfItsJson(String name) {
        List<ProtobufWatchFrames.Event> events = new ArrayList<>();
        ProtobufWatchFrames frames = new ProtobufWatchFrames(protobuf, PartialObjectMetadata.class);
        frames.feed(ByteBuffer.wrap(Fixtures.bytes("protobuf/" + name + ".pb")), events::add);
        frames.end();

        List<String> lines = new String(Fixtures.bytes("protobuf/" + name + ".json"), StandardCharsets.UTF_8)
                .lines().toList();
        assertThat(events).hasSameSizeAs(lines).isNotEmpty();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String object = line.substring(line.indexOf("\"object\":") + "\"object\":".length(), line.lastIndexOf('}'));
            PartialObjectMetadata expected = json.decode(object.getBytes(StandardCharsets.UTF_8),
                    PartialObjectMetadata.class);
            assertThat(events.get(i).type()).isEqualTo(line.substring(9, line.indexOf('"', 9)));
            if (events.get(i).type().equals("BOOKMARK")) {
                // the server's current resourceVersion, which moved on between the two captures
                expected.getMetadata().setResourceVersion(
                        ((PartialObjectMetadata) events.get(i).object()).getMetadata().getResourceVersion());
            }
            assertThat(events.get(i).object()).isEqualTo(expected);
        }
    }

    @Test
    void aStreamingListEndsInTheBookmarkOfItsInitialEvents() {
        List<ProtobufWatchFrames.Event> events = new ArrayList<>();
        ProtobufWatchFrames frames = new ProtobufWatchFrames(protobuf, PartialObjectMetadata.class);
        frames.feed(ByteBuffer.wrap(Fixtures.bytes("protobuf/metadata-gadget-watchlist.pb")), events::add);
        frames.end();

        ProtobufWatchFrames.Event bookmark = events.get(events.size() - 1);
        assertThat(bookmark.type()).isEqualTo("BOOKMARK");
        assertThat(((PartialObjectMetadata) bookmark.object()).getMetadata().getAnnotations())
                .containsEntry("k8s.io/initial-events-end", "true");
    }

    @Test
    void isCoveredByTheGeneratedDecoders() {
        assertThat(ProtobufCodec.supports(PartialObjectMetadata.class)).isTrue();
        assertThat(ProtoDecoders.type(PartialObjectMetadata.class).kind()).isEqualTo(PartialObjectMetadata.KIND);
    }
}
