package io.reactiveinformer.test.server;

import java.nio.charset.StandardCharsets;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * A response of the {@link SimulatedApiServer} before it is written: code, body chunks, whether it
 * streams (chunked) or has a length, its content type, and the texts of its {@code Warning} headers.
 */
record Reply(int code, Flux<byte[]> chunks, boolean stream, int length, String contentType, List<String> warnings) {

    static Reply of(int code, byte[] body) {
        return new Reply(code, Flux.just(body), false, body.length, "application/json", List.of());
    }

    static Reply stream(Flux<byte[]> lines) {
        return new Reply(200, lines, true, -1, "application/json", List.of());
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
