package io.reactiveinformer.client;

import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.codec.KubernetesProtobuf;
import io.reactiveinformer.codec.ProtobufWatchFrames;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * The protobuf {@link WatchStreamDecoder}: a watch in {@code application/vnd.kubernetes.protobuf;stream=watch},
 * length-prefixed {@code WatchEvent} frames ({@link ProtobufWatchFrames}), turned into the events the JSON
 * decoder gives for the same stream: an {@code ERROR} event is thrown as the {@link KubernetesApiException} its
 * {@code Status} describes; an unknown type, or an object without metadata (but a bookmark's), is a
 * {@link DecodeException}, as is a malformed frame (naming the frame and its byte offset in the stream).
 *
 * <p>Threading: not thread-safe, one per stream, fed from one thread at a time.
 *
 * @param <T> the object type
 */
final class ProtobufWatchEventDecoder<T> implements WatchStreamDecoder<T> {

    private final ProtobufWatchFrames frames;
    private final Class<T> type;
    private final String source;

    ProtobufWatchEventDecoder(KubernetesProtobuf protobuf, Class<T> type, String source) {
        this.frames = protobuf.watchFrames(type);
        this.type = type;
        this.source = source;
    }

    @Override
    public void feed(ByteBuffer bytes, Consumer<? super WatchEvent<T>> sink) {
        try {
            frames.feed(bytes, event -> sink.accept(event(event)));
        } catch (DecodeException malformed) {
            throw framed(malformed);
        }
    }

    @Override
    public void end() {
        try {
            frames.end();
        } catch (DecodeException malformed) {
            throw framed(malformed);
        }
    }

    private WatchEvent<T> event(ProtobufWatchFrames.Event event) {
        if (event.object() instanceof V1Status status) {
            // the server sends a Status only in an ERROR event; any other such event is one too
            throw KubernetesApiException.of(source, WatchEventDecoder.statusCode(status), status, null);
        }
        WatchEvent.Type kind;
        try {
            kind = WatchEvent.Type.valueOf(event.type());
        } catch (IllegalArgumentException e) {
            throw new DecodeException(source + ": unknown watch event type \"" + event.type() + "\"", null);
        }
        T object = type.cast(event.object());
        if (kind != WatchEvent.Type.BOOKMARK && WatchEventDecoder.unnamed(object)) {
            throw new DecodeException(source + ": " + event.type() + " object has no metadata.name", null);
        }
        return new WatchEvent<>(kind, object);
    }

    private DecodeException framed(DecodeException malformed) {
        return new DecodeException(source + ": " + malformed.getMessage(), malformed.getCause());
    }
}
