package io.reactiveinformer.test.server;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.resources.LoopResources;

/**
 * A Kubernetes API server simulated over real HTTP on 127.0.0.1, serving a {@link ClusterState}:
 * LIST (pagination, resourceVersion and its match, label and field selectors), WATCH (chunked
 * newline-delimited JSON, resume, bookmarks, {@code timeoutSeconds}, {@code sendInitialEvents}),
 * GET, POST, PUT, PATCH (JSON, merge, strategic merge by the kinds' merge keys, and apply as a merge patch),
 * DELETE, the {@code status} subresource, and error {@code Status} bodies as the real server sends
 * them. Objects are written whole, or as {@code PartialObjectMetadata} (and
 * {@code PartialObjectMetadataList}) when the {@code Accept} header asks for that representation, as
 * client-go's metadata client does. Responses are in JSON or, for the built-in kinds, in kube-apiserver's
 * protobuf when the {@code Accept} header puts {@code application/vnd.kubernetes.protobuf} first
 * (objects and lists in the {@code k8s\0} envelope, watches as length-prefixed {@code WatchEvent}
 * frames, errors as a protobuf {@code Status}); custom resources answer JSON to such a header, or 406 when
 * it accepts protobuf alone. {@link #protobuf(boolean)} turns protobuf off. Request bodies are JSON (or
 * YAML for apply): protobuf ones answer 415. Plain HTTP, no authentication; HTTP/1.1.
 *
 * <p>{@link #faults()} scripts what goes wrong per request. With the same seed, state and script,
 * and a scheduler whose clock is deterministic (e.g. a {@code VirtualTimeScheduler}), the same
 * requests get the same bytes.
 *
 * <p>Threading: a request is received, recorded and given its fault on a Netty event loop, in arrival
 * order, and answered on {@link Schedulers#boundedElastic()}, so that neither a large LIST nor the state's
 * lock holds a loop the client under test may share; delays, timeouts and bookmarks run on the state's
 * scheduler. A watcher's events are written as its connection accepts
 * them; one that falls behind the history window is closed with a 410 {@code ERROR} event.
 *
 * <p>This class is the server's lifecycle (listening, connections, closing) and the first steps of
 * each request: it is recorded, its fault is picked and, for a delay, waited out. Then
 * {@link RequestRouter} answers it (with {@link NonResourceEndpoints}, {@link WatchEndpoint} and
 * {@link RequestDecoder}) and {@link ResponseWriter} writes the answer, applying the faults that act
 * on the connection.
 */
public final class SimulatedApiServer implements AutoCloseable {

    private final ClusterState state;
    private final FaultPlan faults = new FaultPlan();
    private final List<RequestInfo> requests = new CopyOnWriteArrayList<>();
    /** Open connections, closed by {@link #close()}: the server alone would leave them (and their watches) open. */
    private final Set<Channel> connections = ConcurrentHashMap.newKeySet();
    /** Built before the server listens, as are the body readers of its decoder. */
    private final RequestRouter router;
    private final ResponseWriter responses;
    private final DisposableServer server;
    private volatile boolean servesProtobuf = true;

    private SimulatedApiServer(ClusterState state, int port, LoopResources loops) {
        OpenApiDocuments.load();
        state.prepareSchemas();
        this.state = state;
        ProtobufEncoder protobuf = new ProtobufEncoder(ProtobufSchema.get(), state.json().mapper());
        this.router = new RequestRouter(state, this::port, protobuf, () -> servesProtobuf);
        this.responses = new ResponseWriter(state.json(), protobuf);
        HttpServer http = HttpServer.create().host("127.0.0.1").port(port);
        this.server = (loops == null ? http : http.runOn(loops))
                .doOnConnection(connection -> {
                    Channel channel = connection.channel();
                    connections.add(channel);
                    channel.closeFuture().addListener(closed -> connections.remove(channel));
                })
                .handle(this::handle).bindNow();
    }

    /** Starts a server on a fresh {@link ClusterState#create() default state}. */
    public static SimulatedApiServer start() {
        return start(ClusterState.create());
    }

    /** Starts a server on {@code state} (which an in-memory ListerWatcher may share). */
    public static SimulatedApiServer start(ClusterState state) {
        return new SimulatedApiServer(state, 0, null);
    }

    /**
     * Starts a server on {@code state} whose connections run on {@code loops} rather than Reactor Netty's global
     * ones: an application that owns its loops keeps the server alive when another disposes the global loops
     * (Spring's {@code ReactorResourceFactory} does so when its context closes). Close the server before
     * disposing {@code loops}.
     */
    public static SimulatedApiServer start(ClusterState state, LoopResources loops) {
        return new SimulatedApiServer(state, 0, Objects.requireNonNull(loops, "loops"));
    }

    /**
     * Starts a server on {@code state} listening on {@code port} of 127.0.0.1: with the port of a
     * {@link #close() closed} server, a restart at the same address as a real API server restarts,
     * keeping its data and resourceVersions.
     */
    public static SimulatedApiServer start(ClusterState state, int port) {
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("not a port: " + port);
        }
        return new SimulatedApiServer(state, port, null);
    }

    public ClusterState state() {
        return state;
    }

    /** What goes wrong, per request. */
    public FaultPlan faults() {
        return faults;
    }

    /**
     * Whether the built-in kinds are served in protobuf (they are unless turned off): off, the server answers as
     * one without protobuf would, JSON to an {@code Accept} header that also lists JSON, 406 to one that lists
     * protobuf alone; to test a client's fallback to JSON. Takes effect for the requests that follow; any
     * thread.
     *
     * @return this server
     */
    public SimulatedApiServer protobuf(boolean served) {
        this.servesProtobuf = served;
        return this;
    }

    /** Every request received so far, in arrival order. */
    public List<RequestInfo> requests() {
        return List.copyOf(requests);
    }

    /** {@code http://127.0.0.1:port}. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + server.port());
    }

    public int port() {
        return server.port();
    }

    /** A configuration for this server: plain HTTP, no credentials, namespace {@code default}, the state's scheduler. */
    public ClientConfig clientConfig() {
        return ClientConfig.forServer(url()).withScheduler(state.scheduler());
    }

    /** A new client for this server, with the state's JSON mapping; the caller closes it. */
    public KubernetesClient newClient() {
        return KubernetesClient.create(clientConfig(), state.json());
    }

    /**
     * Stops listening and closes every connection (open watches end abruptly), returning once they
     * are closed. Waiting matters: a channel's event loop reads a request that is already on the wire
     * before it runs a queued close, so a request sent right after an unawaited close could still be
     * served. Blocks: call it from a test thread, never from an event loop.
     */
    @Override
    public void close() {
        server.disposeNow(Duration.ofSeconds(5));
        for (Channel channel : connections) {
            channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    // ---------------------------------------------------------------- serving

    private Mono<Void> handle(HttpServerRequest req, HttpServerResponse res) {
        QueryStringDecoder decoder = new QueryStringDecoder(req.uri());
        Map<String, String> query = new LinkedHashMap<>();
        decoder.parameters().forEach((k, v) -> query.put(k, v.isEmpty() ? "" : v.get(0)));
        RequestInfo info = new RequestInfo(req.method().name(), decoder.path(), query);
        requests.add(info);
        Fault fault = faults.next(info);
        return req.receive().aggregate().asByteArray().defaultIfEmpty(new byte[0])
                .flatMap(body -> fault instanceof Fault.Delay delay
                        ? Mono.delay(delay.delay(), state.scheduler()).then(serve(req, res, info, body, null))
                        : serve(req, res, info, body, fault));
    }

    private Mono<Void> serve(HttpServerRequest req, HttpServerResponse res, RequestInfo info, byte[] body, Fault fault) {
        if (fault instanceof Fault.CloseWithoutResponse) {
            return ResponseWriter.abort(res);
        }
        String accept = req.requestHeaders().get(HttpHeaderNames.ACCEPT);
        boolean statusInProtobuf = Representation.statusInProtobuf(accept, servesProtobuf);
        if (fault instanceof Fault.Respond respond) {
            return responses.error(res, new ApiError(respond.code(), respond.reason(), respond.message(), null,
                    respond.retryAfter()), statusInProtobuf);
        }
        String contentType = req.requestHeaders().get(HttpHeaderNames.CONTENT_TYPE);
        String userAgent = req.requestHeaders().get(HttpHeaderNames.USER_AGENT);
        // Off the event loop: a LIST is O(what it returns) (a 100,000-pod one held the loop over a second)
        // and every request takes the state's lock, which a test's writer may hold 100,000 times in a row;
        // in tests the client under test shares Reactor Netty's global loops with this server.
        return Mono.defer(() -> {
            Reply reply;
            try {
                reply = router.route(info, accept, contentType, userAgent, body, fault);
            } catch (ApiError e) {
                return responses.error(res, e, statusInProtobuf);
            }
            return responses.send(res, reply, fault);
        }).subscribeOn(Schedulers.boundedElastic());
    }

    @Override
    public String toString() {
        return "SimulatedApiServer[" + url() + ", " + state + "]";
    }
}
