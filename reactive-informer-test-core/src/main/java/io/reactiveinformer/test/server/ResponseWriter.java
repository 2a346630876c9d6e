package io.reactiveinformer.test.server;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.reactiveinformer.codec.KubernetesJson;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * Writes a {@link Reply} or an error {@code Status} to the HTTP response, applying the faults that
 * act on the connection: a response that never sends a byte, and connections cut after so many
 * bytes or events without ending the response.
 *
 * <p>Threading: stateless; runs on the event loop serving the request.
 */
final class ResponseWriter {

    private final KubernetesJson json;
    private final ProtobufEncoder protobuf;

    ResponseWriter(KubernetesJson json, ProtobufEncoder protobuf) {
        this.json = json;
        this.protobuf = protobuf;
    }

    /** Writes {@code reply} with its headers, as {@code fault} (or {@code null}) allows. */
    Mono<Void> send(HttpServerResponse res, Reply reply, Fault fault) {
        res.status(reply.code()).header(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
        for (String warning : reply.warnings()) {
            res.addHeader(HttpHeaderNames.WARNING, "299 - \"" + warning.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
        }
        Flux<byte[]> chunks = reply.chunks();
        if (reply.stream()) {
            res.header(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        } else {
            res.header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(reply.length()));
        }
        if (fault instanceof Fault.SilentWatch) {
            return res.sendHeaders().then().then(Mono.never());
        }
        if (fault instanceof Fault.CloseAfterBytes cut) {
            return res.sendByteArray(truncate(chunks, cut.bytes())).then().then(abort(res));
        }
        if (fault instanceof Fault.CloseAfterEvents cut) {
            return res.sendByteArray(chunks.take(cut.events())).then().then(abort(res));
        }
        return res.sendByteArray(chunks).then();
    }

    /**
     * Writes the {@code Status} of {@code e}, in protobuf or JSON, with {@code Retry-After} when it has one.
     */
    Mono<Void> error(HttpServerResponse res, ApiError e, boolean inProtobuf) {
        byte[] bytes = inProtobuf ? protobuf.envelope(json.mapper().valueToTree(e.toStatus()))
                : json.encode(e.toStatus());
        res.status(HttpResponseStatus.valueOf(e.code()))
                .header(HttpHeaderNames.CONTENT_TYPE, inProtobuf ? Representation.PROTOBUF : "application/json")
                .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(bytes.length));
        if (e.retryAfter() != null) {
            res.header(HttpHeaderNames.RETRY_AFTER, Long.toString(Math.max(1, e.retryAfter().toSeconds())));
        }
        return res.sendByteArray(Mono.just(bytes)).then();
    }

    /** Closes the connection without ending the response, as a crashed server or a cut cable would. */
    static Mono<Void> abort(HttpServerResponse res) {
        return Mono.create(sink -> res.withConnection(c -> c.channel().close().addListener(f -> sink.success())));
    }

    private static Flux<byte[]> truncate(Flux<byte[]> chunks, long limit) {
        return Flux.defer(() -> {
            AtomicLong left = new AtomicLong(limit);
            return chunks.<byte[]>handle((chunk, sink) -> {
                long room = left.get();
                if (chunk.length < room) {
                    left.addAndGet(-chunk.length);
                    sink.next(chunk);
                } else {
                    if (room > 0) {
                        sink.next(Arrays.copyOf(chunk, (int) room));
                    }
                    sink.complete();
                }
            });
        });
    }
}
