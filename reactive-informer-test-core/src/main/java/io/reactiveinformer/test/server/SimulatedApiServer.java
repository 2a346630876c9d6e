package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.openapi.models.V1StatusDetails;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * A Kubernetes API server simulated over real HTTP on 127.0.0.1, serving a {@link ClusterState}:
 * LIST (pagination, resourceVersion and its match, label and field selectors), WATCH (chunked
 * newline-delimited JSON, resume, bookmarks, {@code timeoutSeconds}, {@code sendInitialEvents}),
 * GET, POST, PUT, PATCH (JSON, merge, strategic merge and apply, the last two as merge patches),
 * DELETE, the {@code status} subresource, and error {@code Status} bodies as the real server sends
 * them. Objects are written whole, or as {@code PartialObjectMetadata} (and
 * {@code PartialObjectMetadataList}) when the {@code Accept} header asks for that representation, as
 * client-go's metadata client does. Plain HTTP, no authentication; HTTP/1.1.
 *
 * <p>{@link #faults()} scripts what goes wrong per request. With the same seed, state and script,
 * and a scheduler whose clock is deterministic (e.g. a {@code VirtualTimeScheduler}), the same
 * requests get the same bytes.
 *
 * <p>Threading: requests are served on Netty event loops and never block; delays, timeouts and
 * bookmarks run on the state's scheduler. A watcher's events are written as its connection accepts
 * them; one that falls behind the history window is closed with a 410 {@code ERROR} event.
 */
public final class SimulatedApiServer implements AutoCloseable {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    /*
     * Readers built up front: an ObjectReader resolves its root deserializer when built, whereas the
     * mapper's readTree resolves it on first use under a lock that concurrent first requests contend for
     * (a blocking park on an event loop, which BlockHound rejects).
     */
    private static final ObjectReader YAML_TREE = YAML.readerFor(JsonNode.class);
    private final ObjectReader jsonTree;
    private final ClusterState state;
    private final FaultPlan faults = new FaultPlan();
    private final List<RequestInfo> requests = new CopyOnWriteArrayList<>();
    /** Open connections, closed by {@link #close()}: the server alone would leave them (and their watches) open. */
    private final Set<Channel> connections = ConcurrentHashMap.newKeySet();
    private final DisposableServer server;

    private SimulatedApiServer(ClusterState state, int port) {
        OpenApiDocuments.load();
        this.state = state;
        this.jsonTree = state.json().mapper().readerFor(JsonNode.class);
        this.server = HttpServer.create().host("127.0.0.1").port(port)
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
        return new SimulatedApiServer(state, 0);
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
        return new SimulatedApiServer(state, port);
    }

    public ClusterState state() {
        return state;
    }

    /** What goes wrong, per request. */
    public FaultPlan faults() {
        return faults;
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
        if (fault instanceof Fault.Respond respond) {
            return error(res, new ApiError(respond.code(), respond.reason(), respond.message(), null,
                    respond.retryAfter()));
        }
        Reply reply;
        try {
            reply = route(req, info, body, fault);
        } catch (ApiError e) {
            return error(res, e);
        }
        res.status(reply.code()).header(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
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

    /** Closes the connection without ending the response, as a crashed server or a cut cable would. */
    private static Mono<Void> abort(HttpServerResponse res) {
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

    private Mono<Void> error(HttpServerResponse res, ApiError e) {
        byte[] bytes = state.json().encode(e.toStatus());
        res.status(HttpResponseStatus.valueOf(e.code()))
                .header(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(bytes.length));
        if (e.retryAfter() != null) {
            res.header(HttpHeaderNames.RETRY_AFTER, Long.toString(Math.max(1, e.retryAfter().toSeconds())));
        }
        return res.sendByteArray(Mono.just(bytes)).then();
    }

    /** A response: code, body chunks, whether it streams (chunked) or has a length, and its content type. */
    private record Reply(int code, Flux<byte[]> chunks, boolean stream, int length, String contentType) {
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

    /** Where a path points: the resource, its namespace (or null), the name and subresource (or null). */
    private record Target(ResourceType<?> type, String namespace, String name, String subresource) {
    }

    private Target target(String path) {
        String[] all = path.split("/");
        List<String> seg = Arrays.asList(all).subList(1, all.length);
        String group;
        String version;
        List<String> rest;
        if (seg.size() >= 3 && seg.get(0).equals("api")) {
            group = "";
            version = seg.get(1);
            rest = seg.subList(2, seg.size());
        } else if (seg.size() >= 4 && seg.get(0).equals("apis")) {
            group = seg.get(1);
            version = seg.get(2);
            rest = seg.subList(3, seg.size());
        } else {
            throw ApiError.pathNotFound();
        }
        String namespace = null;
        if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
            ResourceType<?> inner = state.resource(group, version, rest.get(2)).orElse(null);
            if (inner != null && inner.namespaced()) {
                namespace = rest.get(1);
                rest = rest.subList(2, rest.size());
            }
        }
        if (rest.isEmpty() || rest.size() > 3) {
            throw ApiError.pathNotFound();
        }
        ResourceType<?> type = state.resource(group, version, rest.get(0)).orElseThrow(ApiError::pathNotFound);
        String sub = rest.size() == 3 ? rest.get(2) : null;
        if (sub != null && !sub.equals("status")) {
            throw ApiError.pathNotFound();
        }
        return new Target(type, namespace, rest.size() >= 2 ? rest.get(1) : null, sub);
    }

    private Reply route(HttpServerRequest req, RequestInfo info, byte[] body, Fault fault) {
        Reply other = nonResource(info);
        if (other != null) {
            return other;
        }
        Target t = target(info.path());
        boolean status = "status".equals(t.subresource());
        String method = info.method();
        String accept = req.requestHeaders().get(HttpHeaderNames.ACCEPT);
        String contentType = req.requestHeaders().get(HttpHeaderNames.CONTENT_TYPE);
        boolean dryRun = !method.equals("DELETE") && dryRun(info.query().get("dryRun"));
        if (t.name() == null) {
            if (method.equals("GET")) {
                return info.isWatch()
                        ? watch(t, info.query(), fault, Representation.negotiate(accept, false))
                        : list(t, info.query(), Representation.negotiate(accept, true));
            }
            Representation as = Representation.negotiate(accept, false);
            return switch (method) {
                case "POST" -> object(201, as, state.create(t.type(), t.namespace(), objectBody(body, contentType),
                        dryRun));
                case "DELETE" -> !ObjectSemantics.allowsDeleteCollection(t.type()) ? throwing(methodNotAllowed())
                        : deleteCollection(t, info.query(), deleteRequest(info.query(), body, contentType), as);
                default -> throw methodNotAllowed();
            };
        }
        Representation as = Representation.negotiate(accept, false);
        return switch (method) {
            case "GET" -> object(200, as, state.get(t.type(), t.namespace(), t.name()));
            case "PUT" -> object(200, as, state.replace(t.type(), t.namespace(), t.name(),
                    objectBody(body, contentType), status, dryRun));
            case "PATCH" -> {
                PatchType type = patchType(contentType);
                if (type == PatchType.STRATEGIC_MERGE && !ObjectSemantics.isBuiltIn(t.type())) {
                    throw unsupportedMediaType(contentType, "application/json-patch+json, "
                            + "application/merge-patch+json, application/apply-patch+yaml");
                }
                JsonNode patch = type == PatchType.APPLY ? yaml(body) : json(body);
                String manager = info.query().get("fieldManager");
                if (type == PatchType.APPLY && (manager == null || manager.isEmpty())) {
                    throw new ApiError(422, "Invalid", "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: "
                            + "Required value: is required for apply patch", new V1StatusDetails().group("meta.k8s.io")
                            .kind("PatchOptions"), null);
                }
                yield object(200, as, state.patch(t.type(), t.namespace(), t.name(), type, patch, status, dryRun,
                        manager));
            }
            case "DELETE" -> {
                DeleteRequest request = deleteRequest(info.query(), body, contentType);
                Deletion deletion = state.delete(t.type(), t.namespace(), t.name(), request.options(),
                        request.dryRun());
                yield deletion.removed() && !ObjectSemantics.returnsDeletedObject(t.type())
                        ? Reply.of(200, state.json().encode(deletedStatus(t.type(), deletion.object())))
                        : object(200, as, deletion.object());
            }
            default -> throw methodNotAllowed();
        };
    }

    /** Discovery, version, health and OpenAPI: the paths that name no resource; {@code null} for the others. */
    private Reply nonResource(RequestInfo info) {
        String path = info.path().endsWith("/") && info.path().length() > 1
                ? info.path().substring(0, info.path().length() - 1) : info.path();
        if (!info.method().equals("GET")) {
            return null;
        }
        List<ResourceType<?>> resources = state.resources();
        if (path.startsWith("/openapi/v3/")) {
            return OpenApiDocuments.of(path.substring("/openapi/v3/".length()))
                    .map(document -> Reply.of(200, document.json()))
                    .orElseThrow(ApiError::pathNotFound);
        }
        ObjectNode doc = switch (path) {
            case "/version" -> Discovery.version();
            case "/api" -> Discovery.coreVersions(resources, "127.0.0.1:" + port());
            case "/apis" -> Discovery.groupList(resources);
            case "/openapi/v3" -> Discovery.openApiIndex(resources);
            case "/healthz", "/livez", "/readyz" -> null;
            default -> {
                String[] seg = path.split("/");
                if (seg.length == 3 && seg[1].equals("api")) {
                    yield orNotFound(Discovery.resourceList(resources, "", seg[2], state::hasStatusSubresource));
                }
                if (seg.length == 3 && seg[1].equals("apis")) {
                    yield orNotFound(Discovery.group(resources, seg[2]));
                }
                if (seg.length == 4 && seg[1].equals("apis")) {
                    yield orNotFound(Discovery.resourceList(resources, seg[2], seg[3], state::hasStatusSubresource));
                }
                yield null;
            }
        };
        if (doc == null) {
            return switch (path) {
                case "/healthz", "/livez", "/readyz" -> Reply.text("ok");
                default -> null;
            };
        }
        return Reply.of(200, state.json().encode(doc));
    }

    private static ObjectNode orNotFound(ObjectNode doc) {
        if (doc == null) {
            throw ApiError.pathNotFound();
        }
        return doc;
    }

    /** The {@code Status} a completed DELETE answers with for resources that do not return the object. */
    private static V1Status deletedStatus(ResourceType<?> type, JsonNode object) {
        V1StatusDetails details = new V1StatusDetails().name(object.path("metadata").path("name").asString())
                .kind(type.plural()).uid(object.path("metadata").path("uid").asString());
        if (!type.group().isEmpty()) {
            details.group(type.group());
        }
        return new V1Status().kind("Status").apiVersion("v1").metadata(new V1ListMeta()).status("Success")
                .details(details);
    }

    private Reply deleteCollection(Target t, Map<String, String> q, DeleteRequest request, Representation as) {
        ListOptions selectors = ListOptions.none().withSelectors(q.get("labelSelector"), q.get("fieldSelector"));
        long at = state.resourceVersion();
        List<Deletion> deleted = state.deleteCollection(t.type(), t.namespace(), selectors, request.options(),
                request.dryRun());
        V1ListMeta meta = new V1ListMeta().resourceVersion(Long.toString(at));
        // the real server answers with the items as it listed them, before it deleted each
        List<JsonNode> items = deleted.stream().map(d -> as.object(d.listed())).toList();
        if (as == Representation.METADATA) {
            return Reply.of(200, WireFormat.list(state.json(), Representation.META_API_VERSION, "PartialObjectMetadataList",
                    meta, items));
        }
        return Reply.of(200, WireFormat.list(state.json(), t.type().apiVersion(), t.type().kind() + "List", meta, items));
    }

    /** {@code dryRun=All} (the only value the real server knows); anything else is refused as it refuses it. */
    private static boolean dryRun(String value) {
        if (value == null) {
            return false;
        }
        if (value.equals("All")) {
            return true;
        }
        throw new ApiError(400, "BadRequest", "Invalid dry run value: \"" + value + "\"; supported values: \"All\"",
                null, null);
    }

    /**
     * The options of a DELETE: its {@code DeleteOptions} body or, only when it has none, its query
     * parameters (the real server ignores the query of a DELETE with a body, {@code dryRun} included).
     */
    private DeleteRequest deleteRequest(Map<String, String> q, byte[] body, String contentType) {
        if (body.length == 0) {
            String grace = q.get("gracePeriodSeconds");
            return new DeleteRequest(new DeleteOptions(null, null, propagation(q.get("propagationPolicy")),
                    grace == null ? null : Long.valueOf(parseInt("gracePeriodSeconds", grace))), dryRun(q.get("dryRun")));
        }
        JsonNode options = objectBody(body, contentType);
        JsonNode pre = options.path("preconditions");
        JsonNode grace = options.path("gracePeriodSeconds");
        boolean dryRun = false;
        for (JsonNode value : options.path("dryRun")) {
            dryRun |= dryRun(value.asString());
        }
        return new DeleteRequest(new DeleteOptions(pre.path("uid").asString(null),
                pre.path("resourceVersion").asString(null), propagation(options.path("propagationPolicy").asString(null)),
                grace.canConvertToLong() ? grace.asLong() : null), dryRun);
    }

    private record DeleteRequest(DeleteOptions options, boolean dryRun) {
    }

    private static DeleteOptions.Propagation propagation(String value) {
        if (value == null) {
            return null;
        }
        try {
            return DeleteOptions.Propagation.fromWireName(value);
        } catch (IllegalArgumentException e) {
            throw new ApiError(422, "Invalid", "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: "
                    + "Unsupported value: \"" + value + "\": supported values: \"Foreground\", \"Background\", "
                    + "\"Orphan\", \"nil\"", null, null);
        }
    }

    private Reply object(int code, Representation as, ObjectNode object) {
        return Reply.of(code, state.json().encode(as.object(object)));
    }

    private Reply list(Target t, Map<String, String> q, Representation as) {
        Integer limit = q.containsKey("limit") ? parseInt("limit", q.get("limit")) : null;
        ListOptions options = new ListOptions(q.get("labelSelector"), q.get("fieldSelector"), limit,
                q.get("continue"), q.get("resourceVersion"), q.get("resourceVersionMatch"));
        ListResult page = state.list(t.type(), t.namespace(), options);
        V1ListMeta meta = new V1ListMeta().resourceVersion(page.resourceVersion())._continue(page.continueToken())
                .remainingItemCount(page.remainingItemCount());
        if (as == Representation.METADATA) {
            return Reply.of(200, WireFormat.list(state.json(), Representation.META_API_VERSION, "PartialObjectMetadataList",
                    meta, page.items().stream().map(as::object).toList()));
        }
        return Reply.of(200, WireFormat.list(state.json(), t.type().apiVersion(), t.type().kind() + "List", meta,
                page.items()));
    }

    private Reply watch(Target t, Map<String, String> q, Fault fault, Representation as) {
        Integer timeout = q.containsKey("timeoutSeconds") ? parseInt("timeoutSeconds", q.get("timeoutSeconds")) : null;
        WatchOptions options = new WatchOptions(q.get("labelSelector"), q.get("fieldSelector"),
                q.get("resourceVersion"), q.get("resourceVersionMatch"), timeout,
                "true".equals(q.get("allowWatchBookmarks")), "true".equals(q.get("sendInitialEvents")));
        if (fault instanceof Fault.ExpiredWatch) {
            long oldest = state.oldestResourceVersion(t.type());
            ApiError gone = ApiError.tooOld(oldest - 1 < 0 ? 0 : oldest - 1, oldest + 1);
            return Reply.stream(Flux.just(WireFormat.watchEvent(state.json(), "ERROR", state.statusTree(gone))));
        }
        Flux<StreamEvent> events = state.watch(t.type(), t.namespace(), options);
        Flux<byte[]> lines = events.map(e -> WireFormat.watchEvent(state.json(), e.type().name(),
                e.type() == EventType.ERROR ? e.object() : as.object(e.object())));
        if (fault instanceof Fault.Insert insert) {
            lines = insertAfter(lines, insert.afterEvents(), insert.bytes());
        } else if (fault instanceof Fault.ObjectWithoutMetadata bad) {
            ObjectNode object = state.json().mapper().createObjectNode();
            object.put("apiVersion", t.type().apiVersion());
            object.put("kind", t.type().kind());
            lines = insertAfter(lines, bad.afterEvents(), WireFormat.watchEvent(state.json(), "ADDED", object));
        }
        return Reply.stream(lines);
    }

    private static Flux<byte[]> insertAfter(Flux<byte[]> lines, int after, byte[] extra) {
        if (after <= 0) {
            return Flux.just(extra).concatWith(lines);
        }
        return Flux.defer(() -> {
            AtomicInteger seen = new AtomicInteger();
            return lines.concatMapIterable(line -> seen.incrementAndGet() == after ? List.of(line, extra) : List.of(line));
        });
    }

    /** A JSON or YAML request body; protobuf and CBOR (which the simulated server cannot decode) get 415. */
    private ObjectNode objectBody(byte[] body, String contentType) {
        String ct = contentType == null ? "application/json" : contentType.split(";")[0].trim();
        JsonNode node = switch (ct) {
            case "application/json", "" -> json(body);
            case "application/yaml" -> yaml(body);
            default -> throw unsupportedMediaType(contentType, "application/json, application/yaml");
        };
        if (!node.isObject()) {
            throw ApiError.badRequest("the request body must be a JSON object");
        }
        return (ObjectNode) node;
    }

    private JsonNode json(byte[] body) {
        try {
            return jsonTree.readTree(body);
        } catch (JacksonException e) {
            throw ApiError.badRequest("cannot decode the request body: " + e.getOriginalMessage());
        }
    }

    private static JsonNode yaml(byte[] body) {
        try {
            return YAML_TREE.readTree(body);
        } catch (JacksonException e) {
            throw ApiError.badRequest("cannot decode the apply patch: " + e.getOriginalMessage());
        }
    }

    private static PatchType patchType(String contentType) {
        String ct = contentType == null ? "" : contentType.split(";")[0].trim();
        for (PatchType type : PatchType.values()) {
            if (type.contentType().equals(ct)) {
                return type;
            }
        }
        throw unsupportedMediaType(contentType, "application/json-patch+json, application/merge-patch+json, "
                + "application/apply-patch+yaml, application/strategic-merge-patch+json");
    }

    private static ApiError unsupportedMediaType(String contentType, String accepted) {
        return new ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                + "accepted media types include: " + accepted, null, null);
    }

    private static Reply throwing(ApiError error) {
        throw error;
    }

    private static ApiError methodNotAllowed() {
        return new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
                null, null);
    }

    private static Integer parseInt(String name, String value) {
        try {
            return Integer.valueOf(value);
        } catch (NumberFormatException e) {
            throw ApiError.badRequest("invalid " + name + ": \"" + value + "\"");
        }
    }

    @Override
    public String toString() {
        return "SimulatedApiServer[" + url() + ", " + state + "]";
    }
}
