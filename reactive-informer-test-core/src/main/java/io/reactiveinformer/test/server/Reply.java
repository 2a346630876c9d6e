package io.reactiveinformer.test.server;

import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Flux;

/**
 * A response of the {@link SimulatedApiServer} before it is written: code, body chunks, whether it
 * streams (chunked) or has a length, and its content type.
 */
record Reply(int code, Flux<byte[]> chunks, boolean stream, int length, String contentType) {

    static Reply of(int code, byte[] body) {
        return new Reply(code, Flux.just(body), false, body.length, "application/json");
    }

    static Reply stream(Flux<byte[]> lines) {
        return new Reply(200, lines, true, -1, "application/json");
    }

    static Reply text(String text) {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        return new Reply(200, Flux.just(body), false, body.length, "text/plain; charset=utf-8");
    }
}
