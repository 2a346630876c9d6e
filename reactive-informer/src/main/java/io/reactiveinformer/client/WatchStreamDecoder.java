package io.reactiveinformer.client;

import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.WatchEvent;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A watch response's events, decoded from byte chunks split anywhere, whatever the encoding:
 * {@link WatchEventDecoder} (JSON) and {@link ProtobufWatchEventDecoder}. {@link DecodedChunk} feeds it.
 *
 * <p>Threading: not thread-safe, one per stream, fed from one thread at a time.
 *
 * @param <T> the object type
 */
interface WatchStreamDecoder<T> {

    /**
     * Feeds the next bytes; every event they complete is handed to {@code sink}, in order, on the calling
     * thread, before this returns. The buffer is consumed before this returns (up to an error).
     *
     * @throws io.reactiveinformer.api.DecodeException on malformed input
     * @throws KubernetesApiException                  on an ERROR event (its Status)
     */
    void feed(ByteBuffer bytes, Consumer<? super WatchEvent<T>> sink);

    /**
     * Marks the end of the stream.
     *
     * @throws io.reactiveinformer.api.DecodeException if it ended inside an event
     */
    void end();
}
