package io.reactiveinformer.test.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/** Byte-level requests: what exactly the server wrote, and how the connection ended. */
final class RawHttp {

    /** The status, every body byte received, the error that ended the body, if any, and the content type. */
    record Result(int status, byte[] body, Throwable error, String contentType) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private RawHttp() {
    }

    static Mono<Result> get(SimulatedApiServer server, String pathAndQuery) {
        return exchange(server, HttpClient.create(ConnectionProvider.newConnection()).baseUrl(server.url().toString())
                .get().uri(pathAndQuery));
    }

    static Mono<Result> exchange(SimulatedApiServer server, HttpClient.ResponseReceiver<?> request) {
        return request.response((res, body) -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            return body.asByteArray()
                    .doOnNext(out::writeBytes)
                    .then(Mono.fromCallable(() -> new Result(res.status().code(), out.toByteArray(), null,
                            res.responseHeaders().get("Content-Type"))))
                    .onErrorResume(e -> Mono.just(new Result(res.status().code(), out.toByteArray(), e,
                            res.responseHeaders().get("Content-Type"))));
        }).single().timeout(Duration.ofSeconds(10));
    }
}
