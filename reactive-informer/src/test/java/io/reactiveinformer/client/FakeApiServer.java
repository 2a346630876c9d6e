package io.reactiveinformer.client;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import org.reactivestreams.Publisher;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/** A loopback HTTP server that records requests and answers with the handler a test sets. */
final class FakeApiServer implements AutoCloseable {

    /** One received request. */
    record Seen(String method, String uri, HttpHeaders headers, String body) {
    }

    private final List<Seen> requests = new CopyOnWriteArrayList<>();
    private volatile BiFunction<HttpServerRequest, HttpServerResponse, Publisher<Void>> handler;
    private final DisposableServer server;

    FakeApiServer() {
        this(HttpServer.create());
    }

    FakeApiServer(HttpServer base) {
        server = base.host("127.0.0.1").port(0)
                .handle((req, res) -> req.receive().aggregate().asString().defaultIfEmpty("")
                        .flatMapMany(body -> {
                            requests.add(new Seen(req.method().name(), req.uri(), req.requestHeaders().copy(), body));
                            return handler.apply(req, res);
                        }))
                .bindNow();
    }

    void handle(BiFunction<HttpServerRequest, HttpServerResponse, Publisher<Void>> handler) {
        this.handler = handler;
    }

    String url() {
        return "http://127.0.0.1:" + server.port();
    }

    int port() {
        return server.port();
    }

    List<Seen> requests() {
        return requests;
    }

    Seen last() {
        return requests.get(requests.size() - 1);
    }

    @Override
    public void close() {
        server.disposeNow();
    }
}
