package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.DecodeException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * Bytes that are not what kube-apiserver writes end in a {@link DecodeException} naming where, never in
 * another exception: truncated and garbled objects, frames of a wrong length, a stream cut inside a frame.
 */
class ProtobufMalformedInputTest {

    private static final byte[] POD = Fixtures.bytes("protobuf/pod.pb");
    private static final byte[] WATCH = Fixtures.bytes("protobuf/configmap-watch.pb");

    private final ProtobufCodec protobuf = new ProtobufCodec(KubernetesJson.defaults());

    @Test
    void aTruncatedObjectNamesTheOffset() {
        byte[] truncated = Arrays.copyOf(POD, POD.length - 10);

        assertThatThrownBy(() -> protobuf.decode(truncated, V1Pod.class))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("decoding V1Pod from protobuf")
                .hasMessageContaining("(at byte ");
    }

    @Test
    void aBodyWithoutTheEnvelopeIsRejectedAtByteZero() {
        assertThatThrownBy(() -> protobuf.decode("{\"kind\":\"Pod\"}".getBytes(), V1Pod.class))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("no protobuf envelope")
                .hasMessageContaining("(at byte 0)");
    }

    @Test
    void anotherKindIsRejected() {
        assertThatThrownBy(() -> protobuf.decode(POD, V1ConfigMap.class))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("holds a v1 Pod, not a ConfigMap");
    }

    @Test
    void aStatusIsDecodedWhereAnObjectWasExpected() {
        // the envelope of a Status, as the server sends it for an error: kind Status, message "gone"
        byte[] status = {'k', '8', 's', 0, 0x0a, 0x0c, 0x0a, 0x02, 'v', '1', 0x12, 0x06, 'S', 't', 'a', 't', 'u', 's',
                0x12, 0x06, 0x1a, 0x04, 'g', 'o', 'n', 'e'};

        assertThat(protobuf.decodeObject(status, 0, status.length, V1Pod.class))
                .isEqualTo(new V1Status().apiVersion("v1").kind("Status").message("gone"));
        assertThatThrownBy(() -> protobuf.decode(status, V1Pod.class))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("the body holds a Status");
    }

    @Test
    void aStreamEndingInsideAFrameNamesTheFrameAndOffset() {
        ProtobufWatchFrames frames = new ProtobufWatchFrames(protobuf, V1ConfigMap.class);
        List<ProtobufWatchFrames.Event> events = new ArrayList<>();
        frames.feed(ByteBuffer.wrap(WATCH, 0, WATCH.length - 1), events::add);

        assertThat(events).isEmpty();
        assertThatThrownBy(frames::end)
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("the stream ends inside a frame")
                .hasMessageContaining("frame 0, at byte " + (WATCH.length - 1) + " of the stream");
    }

    @Test
    void aFrameLengthBeyondAnyObjectIsRejectedAtOnce() {
        byte[] stream = WATCH.clone();
        stream[0] = 0x7f;

        assertThatThrownBy(() -> new ProtobufWatchFrames(protobuf, V1ConfigMap.class).feed(ByteBuffer.wrap(stream), e -> { }))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("a frame length of")
                .hasMessageContaining("frame 0, at byte 0 of the stream");
    }

    @Test
    void aFrameShorterThanItsEventNamesTheFrame() {
        byte[] twoFrames = new byte[WATCH.length * 2];
        System.arraycopy(WATCH, 0, twoFrames, 0, WATCH.length);
        System.arraycopy(WATCH, 0, twoFrames, WATCH.length, WATCH.length);
        twoFrames[WATCH.length + 3] -= 20; // the second frame's length: its event is cut short
        List<ProtobufWatchFrames.Event> events = new ArrayList<>();

        assertThatThrownBy(() -> new ProtobufWatchFrames(protobuf, V1ConfigMap.class).feed(ByteBuffer.wrap(twoFrames), events::add))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("frame 1, at byte ");
        assertThat(events).hasSize(1);
    }

    /** Any corruption of a real object: decoded (a flipped byte may still be valid) or a DecodeException. */
    @Property(tries = 500)
    void garbledObjectsFailOnlyWithADecodeException(@ForAll @IntRange(min = 0, max = 5899) int at,
            @ForAll @Size(min = 1, max = 8) List<Byte> garbage) {
        byte[] garbled = POD.clone();
        for (int i = 0; i < garbage.size() && at + i < garbled.length; i++) {
            garbled[at + i] = garbage.get(i);
        }
        try {
            protobuf.decode(garbled, V1Pod.class);
        } catch (DecodeException expected) {
            assertThat(expected).hasMessageContaining("(at byte ");
        }
    }

    /** Any corruption of a watch stream: decoded or a DecodeException naming the frame. */
    @Property(tries = 300)
    void garbledWatchStreamsFailOnlyWithADecodeException(@ForAll @IntRange(min = 0, max = 881) int at,
            @ForAll byte value) {
        byte[] garbled = WATCH.clone();
        garbled[at] = value;
        ProtobufWatchFrames frames = new ProtobufWatchFrames(protobuf, V1ConfigMap.class);
        try {
            frames.feed(ByteBuffer.wrap(garbled), e -> { });
            frames.end();
        } catch (DecodeException expected) {
            assertThat(expected).hasMessageContaining("of the stream)");
        }
    }
}
