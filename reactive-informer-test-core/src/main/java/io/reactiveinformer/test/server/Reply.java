package io.reactiveinformer.test.server;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * A response of the {@link SimulatedApiServer} before it is written: code, body chunks, whether it
 * streams (chunked) or has a length, its content type, and the texts of its {@code Warning} headers.
 */
record Reply(int code, Flux<byte[]> chunks, boolean stream, int length, String contentType, List<String> warnings) {

    /**
     * A body is written in pieces of at most this many bytes: the event loop copies each piece into
     * a direct buffer, and one copy of a 100,000-pod LIST held it for 257 ms.
     */
    static final int PIECE = 64 * 1024;

    static Reply of(int code, byte[] body) {
        return new Reply(code, pieces(body), false, body.length, "application/json", List.of());
    }

    /** An enveloped protobuf object or list. */
    static Reply protobuf(int code, byte[] body) {
        return new Reply(code, pieces(body), false, body.length, Representation.PROTOBUF, List.of());
    }

    private static Flux<byte[]> pieces(byte[] body) {
        if (body.length <= PIECE) {
            return Flux.just(body);
        }
        return Flux.range(0, (body.length + PIECE - 1) / PIECE)
                .map(i -> Arrays.copyOfRange(body, i * PIECE, Math.min(body.length, (i + 1) * PIECE)));
    }

    /** A watch: JSON lines, or protobuf frames. */
    static Reply stream(Flux<byte[]> events, boolean protobuf) {
        return new Reply(200, events, true, -1, protobuf ? Representation.PROTOBUF + ";stream=watch"
                : "application/json", List.of());
    }

    static Reply text(String text) {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        return new Reply(200, Flux.just(body), false, body.length, "text/plain; charset=utf-8", List.of());
    }

    /** This reply with a {@code Warning: 299 - "<text>"} header per text, as the real server warns. */
    Reply withWarnings(List<String> texts) {
        return new Reply(code, chunks, stream, length, contentType, List.copyOf(texts));
    }
}
