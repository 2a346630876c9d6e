package io.reactiveinformer.client;

import io.netty.buffer.ByteBuf;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.WatchEvent;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The watch events one received buffer completed, and the error that ended decoding it, if any: the
 * events before an {@code ERROR} event or a malformed one in the same buffer are still delivered,
 * then the error.
 */
record DecodedChunk<T>(List<WatchEvent<T>> decoded, RuntimeException error) {

    /**
     * A watch response's events, decoded by {@code decoder} from its {@code body}; at the body's end, fails if
     * it ended inside an event.
     */
    static <T> Flux<WatchEvent<T>> watchEvents(Flux<? extends ByteBuf> body, WatchStreamDecoder<T> decoder) {
        // decode inside onNext (the buffer is released when it returns); queue only decoded events
        return body.map(buf -> decode(decoder, buf))
                .concatMap(DecodedChunk::events)
                .concatWith(Mono.fromRunnable(decoder::end));
    }

    static <T> DecodedChunk<T> decode(WatchStreamDecoder<T> decoder, ByteBuf buf) {
        List<WatchEvent<T>> events = new ArrayList<>(2);
        try {
            decoder.feed(HttpTransport.nio(buf), events::add);
            return new DecodedChunk<>(events, null);
        } catch (KubernetesClientException e) {
            return new DecodedChunk<>(events, e);
        }
    }

    Flux<WatchEvent<T>> events() {
        if (error == null && decoded.size() == 1) {
            // a server writes an event per chunk: a scalar source, which concatMap takes without subscribing
            return Flux.just(decoded.get(0));
        }
        Flux<WatchEvent<T>> events = Flux.fromIterable(decoded);
        return error == null ? events : events.concatWith(Flux.error(error));
    }
}
