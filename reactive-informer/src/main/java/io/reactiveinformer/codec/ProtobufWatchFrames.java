package io.reactiveinformer.codec;

import com.google.protobuf.CodedInputStream;
import io.reactiveinformer.api.DecodeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * Decodes a watch stream in {@code application/vnd.kubernetes.protobuf;stream=watch}, from byte chunks split
 * anywhere: frames of a 4-byte big-endian length and that many bytes of a {@code metav1.WatchEvent} message
 * (no envelope), whose {@code object} is a {@code RawExtension} holding the enveloped object (see
 * {@link ProtobufEnvelope}). Each event's object is a {@code type}, or a {@code V1Status} (an {@code ERROR}
 * event). Event types are passed on as the server wrote them.
 *
 * <p>A frame that does not decode, a length over {@value #MAX_FRAME} bytes, or a stream that ends inside a
 * frame throws a {@link DecodeException} naming the frame (counted from 0) and the byte offset in the stream.
 *
 * <p>Threading: not thread-safe, one per stream ({@link KubernetesProtobuf#watchFrames}); {@link #feed} decodes on
 * the calling thread.
 */
public final class ProtobufWatchFrames {

    /** kube-apiserver's own ceiling for a request or an object is far below; a larger length is not a length. */
    static final int MAX_FRAME = 256 << 20;

    private static final int TYPE = 1 << 3 | 2;
    private static final int OBJECT = 2 << 3 | 2;
    private static final int RAW = 1 << 3 | 2;

    /** A watch event; {@code object} is the watched type, or a {@code V1Status} for {@code ERROR}. */
    public record Event(String type, Object object) {
    }

    private final ProtobufCodec codec;
    private final Class<?> type;
    /**
     * The stream's bytes not decoded yet, {@code [start, end)}: the chunks are copied in and the frames decoded
     * in place, so a frame that spans chunks costs one copy of its bytes, not one per chunk (the decoded objects
     * keep no reference to it: their strings and byte fields are copies). Reused from chunk to chunk; dropped
     * once empty if a large frame grew it past {@value #KEPT}, so an idle watch holds little.
     */
    private byte[] buffer = EMPTY;
    private int start;
    private int end;
    /** Offset in the stream of {@code buffer[start]}. */
    private long offset;
    private long frames;

    private static final byte[] EMPTY = new byte[0];
    private static final int KEPT = 64 << 10;

    ProtobufWatchFrames(ProtobufCodec codec, Class<?> type) {
        this.codec = codec;
        this.type = type;
    }

    /** Hands every event {@code chunk} completes to {@code sink}, in order, before returning; reads all of it. */
    public void feed(ByteBuffer chunk, Consumer<Event> sink) {
        append(chunk);
        while (end - start >= 4) {
            long length = ((buffer[start] & 0xffL) << 24) | ((buffer[start + 1] & 0xff) << 16)
                    | ((buffer[start + 2] & 0xff) << 8) | (buffer[start + 3] & 0xff);
            if (length > MAX_FRAME) {
                throw error("a frame length of " + length + " bytes", offset, null);
            }
            if (end - start - 4 < length) {
                break;
            }
            Event event = event(buffer, start + 4, (int) length, offset);
            frames++;
            start += 4 + (int) length;
            offset += 4 + length;
            sink.accept(event);
        }
        if (start == end) {
            start = end = 0;
            if (buffer.length > KEPT) {
                buffer = EMPTY;
            }
        }
    }

    private void append(ByteBuffer chunk) {
        int size = chunk.remaining();
        if (buffer.length - end < size) {
            int live = end - start;
            byte[] into = live + size <= buffer.length ? buffer : new byte[Math.max(live + size, 2 * buffer.length)];
            System.arraycopy(buffer, start, into, 0, live);
            buffer = into;
            start = 0;
            end = live;
        }
        chunk.get(buffer, end, size);
        end += size;
    }

    /** The stream has ended: it must not end inside a frame. */
    public void end() {
        if (end > start) {
            throw error("the stream ends inside a frame (" + (end - start) + " bytes of it)", offset + end - start,
                    null);
        }
    }

    private Event event(byte[] bytes, int offset, int length, long streamOffset) {
        CodedInputStream in = CodedInputStream.newInstance(bytes, offset, length);
        String eventType = null;
        int objectOffset = -1;
        int objectLength = 0;
        try {
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                switch (tag) {
                    case TYPE -> eventType = in.readStringRequireUtf8();
                    case OBJECT -> {
                        int limit = in.pushLimit(in.readRawVarint32());
                        for (int t = in.readTag(); t != 0; t = in.readTag()) {
                            if (t == RAW) {
                                objectLength = in.readRawVarint32();
                                objectOffset = offset + in.getTotalBytesRead();
                                in.skipRawBytes(objectLength);
                            } else {
                                in.skipField(t);
                            }
                        }
                        in.popLimit(limit);
                    }
                    default -> in.skipField(tag);
                }
            }
        } catch (IOException e) {
            throw error("malformed watch event: " + e.getMessage(), streamOffset + 4 + in.getTotalBytesRead(), e);
        }
        if (eventType == null || objectOffset < 0) {
            throw error("a watch event without " + (eventType == null ? "a type" : "an object"), streamOffset, null);
        }
        try {
            return new Event(eventType, codec.readEnveloped(bytes, objectOffset, objectLength, type));
        } catch (ProtobufDecodeError e) {
            throw error(e.problem(), streamOffset + (e.offset() - offset) + 4, e.getCause());
        }
    }

    private DecodeException error(String problem, long streamOffset, Throwable cause) {
        return new DecodeException("decoding a " + type.getSimpleName() + " watch from protobuf: " + problem
                + " (frame " + frames + ", at byte " + streamOffset + " of the stream)", cause);
    }
}
