package io.reactiveinformer.client;

import io.kubernetes.client.common.KubernetesObject;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.codec.KubernetesProtobuf;
import io.reactiveinformer.config.Encoding;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClientResponse;

/**
 * Operations on one resource, in one namespace or all of them, optionally narrowed by label and
 * field selectors. Immutable: {@link #inNamespace}, {@link #inAnyNamespace}, {@link #withLabelSelector}
 * and {@link #withFieldSelector} return new handles sharing the same connection pool.
 *
 * <p>{@link #list} and {@link #watch} use the handle's namespace and selectors; selectors in the
 * options are combined with the handle's (both must match). A reflector takes the handle through
 * {@code ListerWatcher.of(handle)} (package {@code watch}): the client does not know the reflector.
 *
 * <p>Every call is cold: the request is sent on subscription, and cancelling the subscription
 * closes it (for a watch, the connection's stream). Results are emitted on a Netty event loop (or,
 * when a token had to be read or fetched, on boundedElastic), except a {@link #list} page, which may be
 * emitted on a {@code Schedulers.parallel()} worker: do not block in operators downstream.
 * A watch {@code Flux} emits events in server order and ends in an error built from an
 * {@code ERROR} event; each received buffer is decoded as it arrives and the decoded events of a
 * bounded number of buffers wait for downstream demand, so a slow subscriber stops the socket reads.
 *
 * <p>A handle on a {@linkplain ResourceType#metadataOnly() metadata-only} type ({@link #metadataOnly()},
 * {@link KubernetesClient#metadata}) asks the server for the {@code PartialObjectMetadata}
 * representation, as client-go's metadata client does: lists, watches and gets carry only metadata.
 * It is asked for in protobuf, for custom resources too, unless the encoding is {@link Encoding#JSON}.
 * Such a handle patches and deletes, but does not create or replace (it has no whole object to send).
 *
 * <p>Reads (list, get, watch) of a built-in kind are asked for in protobuf, or JSON if the server has no
 * protobuf for it, and decoded by the response's {@code Content-Type}, unless the configuration or
 * {@link #withEncoding} says {@link Encoding#JSON}; a refusal falls back to JSON for good (see {@link Encoding}).
 * Everything else, and every write, is JSON.
 *
 * @param <T> the object type
 */
public final class ResourceClient<T extends KubernetesObject> {

    /** How long after the server should have closed a watch ({@code timeoutSeconds}) we give up on it. */
    static final Duration WATCH_GRACE = Duration.ofSeconds(30);

    /**
     * A LIST's raw items waiting for or in binding on workers, at most: thousands of objects, so that the
     * connection's event loop, which binds beyond it, seldom does (see {@code ParallelBinder}).
     */
    private static final long BYTES_IN_FLIGHT = 16L << 20;

    /**
     * The metadata representations, then plain JSON: a server that cannot convert (an aggregated API
     * may not) sends the whole objects instead, which decode to the same metadata.
     */
    static final String ACCEPT_METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
            + "application/json";
    static final String ACCEPT_METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
            + "application/json";
    /** Protobuf, or JSON where the server has no protobuf for the resource: what client-go asks for. */
    static final String ACCEPT_PROTOBUF = KubernetesProtobuf.MEDIA_TYPE + ", application/json";
    /**
     * The metadata representations in protobuf first, as client-go's metadata client asks: {@code meta.k8s.io}
     * types, so kube-apiserver has them in protobuf for custom resources too, whose objects it serves in JSON only.
     */
    static final String ACCEPT_PROTOBUF_METADATA_LIST = KubernetesProtobuf.MEDIA_TYPE
            + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," + ACCEPT_METADATA_LIST;
    static final String ACCEPT_PROTOBUF_METADATA = KubernetesProtobuf.MEDIA_TYPE
            + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1," + ACCEPT_METADATA;

    private final HttpTransport transport;
    private final ResourceType<T> type;
    private final String namespace;
    private final String labelSelector;
    private final String fieldSelector;
    /** Writes are sent with {@code dryRun=All}. */
    private final boolean dryRun;
    /** The deadline of each request but watches; {@code null}: the configuration's. */
    private final Duration timeout;
    /** Asked for by list, get and watch; protobuf only where {@link #asksProtobuf()}. */
    private final Encoding encoding;
    private final ResourceRequests requests;

    ResourceClient(HttpTransport transport, ResourceType<T> type, String namespace, String labelSelector,
                   String fieldSelector) {
        this(transport, type, namespace, labelSelector, fieldSelector, false, null, transport.config().encoding());
    }

    private ResourceClient(HttpTransport transport, ResourceType<T> type, String namespace, String labelSelector,
                           String fieldSelector, boolean dryRun, Duration timeout, Encoding encoding) {
        this.transport = transport;
        this.type = type;
        this.namespace = type.namespaced() ? namespace : null;
        this.labelSelector = labelSelector;
        this.fieldSelector = fieldSelector;
        this.dryRun = dryRun;
        this.timeout = timeout;
        this.encoding = encoding;
        this.requests = new ResourceRequests(type, labelSelector, fieldSelector, dryRun);
        transport.json().prepare(type.type());
    }

    public ResourceType<T> type() {
        return type;
    }

    /** The namespace of this handle, or {@code null} for all namespaces or a cluster-scoped resource. */
    public String namespace() {
        return namespace;
    }

    /**
     * The same resource, namespace and selectors, read as metadata only: objects carry their
     * {@code metadata} (labels, annotations, owner references, resource version, ...) and nothing else.
     */
    public ResourceClient<PartialObjectMetadata> metadataOnly() {
        return new ResourceClient<>(transport, type.metadataOnly(), namespace, labelSelector, fieldSelector, dryRun,
                timeout, encoding);
    }

    /**
     * The same handle, reading (list, get, watch) in {@code encoding} whatever the client's configuration says
     * ({@link io.reactiveinformer.config.ClientConfig#encoding()}). Protobuf applies to the built-in kinds only.
     */
    public ResourceClient<T> withEncoding(Encoding encoding) {
        return new ResourceClient<>(transport, type, namespace, labelSelector, fieldSelector, dryRun, timeout,
                Objects.requireNonNull(encoding, "encoding"));
    }

    /** The same resource in {@code namespace}. */
    public ResourceClient<T> inNamespace(String namespace) {
        if (!type.namespaced()) {
            throw new IllegalStateException(type.kind() + " is cluster-scoped");
        }
        return new ResourceClient<>(transport, type, Objects.requireNonNull(namespace, "namespace"), labelSelector,
                fieldSelector, dryRun, timeout, encoding);
    }

    /** The same resource across all namespaces (for list and watch). */
    public ResourceClient<T> inAnyNamespace() {
        return new ResourceClient<>(transport, type, null, labelSelector, fieldSelector, dryRun, timeout, encoding);
    }

    /** Narrows list and watch to objects matching {@code selector} (e.g. {@code app=web,tier!=db}). */
    public ResourceClient<T> withLabelSelector(String selector) {
        return new ResourceClient<>(transport, type, namespace, selector, fieldSelector, dryRun, timeout, encoding);
    }

    /** Narrows list and watch to objects matching {@code selector} (e.g. {@code status.phase=Running}). */
    public ResourceClient<T> withFieldSelector(String selector) {
        return new ResourceClient<>(transport, type, namespace, labelSelector, selector, dryRun, timeout, encoding);
    }

    /**
     * The same handle, whose writes (create, replace, patch, apply, delete, deleteCollection) are
     * dry runs ({@code dryRun=All}): the server validates and answers with the result, and stores
     * nothing.
     */
    public ResourceClient<T> dryRun() {
        return new ResourceClient<>(transport, type, namespace, labelSelector, fieldSelector, true, timeout, encoding);
    }

    /**
     * The same handle, whose every request but watches must complete within {@code timeout} (else it
     * fails with a {@link TransportException}) instead of the configuration's request timeout.
     */
    public ResourceClient<T> withTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        return new ResourceClient<>(transport, type, namespace, labelSelector, fieldSelector, dryRun, timeout, encoding);
    }

    /**
     * One page. The connection's thread finds where each item's bytes begin and end; the items are bound
     * on {@code Schedulers.parallel()} while it reads on (see {@code ParallelBinder}), and the page, in the
     * server's order, is emitted on the thread that bound its last items.
     */
    public Mono<ObjectList<T>> list(ListOptions options) {
        return list(options, UnaryOperator.identity());
    }

    /**
     * One page, each item replaced by {@code intern}'s answer as soon as it is bound: a caller that holds most of
     * the items already (an informer relisting) answers its own equal instance, so the page holds the decoded
     * copies of the changed items only. {@code intern} is called on the threads that bind, concurrently, and must
     * neither block nor throw; it must answer an object of the same state as the one it is given.
     */
    public Mono<ObjectList<T>> list(ListOptions options, UnaryOperator<T> intern) {
        Objects.requireNonNull(intern, "intern");
        String path = requests.list(namespace, options);
        String request = "GET " + path;
        return negotiated(request, protobuf -> transport.exchangeOne(HttpMethod.GET, path, null, null,
                accept(protobuf, true), timeout, (response, body) -> {
                    ListDecoder<T> decoder = decodesProtobuf(protobuf, response, false, request)
                            ? new ProtobufListDecoder<>(transport.protobuf(), type.type(), request, intern)
                            : new ObjectListDecoder<>(transport.json(), type.type(), request, intern);
                    ParallelBinder<T> binder = new ParallelBinder<>(decoder, Schedulers.parallel(),
                            Schedulers.boundedElastic(), BYTES_IN_FLIGHT);
                    return body.doOnNext(buf -> binder.offer(decoder.feed(HttpTransport.nio(buf))))
                            .then(binder.result())
                            .doOnCancel(binder::cancel)
                            .doOnError(e -> binder.cancel())
                            .flux();
                }).flux()).next();
    }

    /** Every object, page after page of {@code pageSize}, from a consistent snapshot. */
    public Flux<T> listAll(int pageSize) {
        ListOptions first = ListOptions.none().withLimit(pageSize);
        return list(first)
                .expand(page -> page.hasMore() ? list(first.withContinue(page.continueToken())) : Mono.empty())
                .concatMapIterable(ObjectList::items);
    }

    /**
     * A watch stream. With {@code timeoutSeconds}, the server closes it after that long (a normal
     * completion); should it not, the stream fails with a {@link TransportException} 30 s later, so a
     * dead connection can never hang a watch. Without it, the stream has no client-side deadline.
     */
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        String path = requests.watch(namespace, options);
        String request = "GET " + path;
        Flux<WatchEvent<T>> events = negotiated(request, protobuf -> transport.exchange(HttpMethod.GET, path, null,
                null, accept(protobuf, false), (response, body) -> {
                    WatchStreamDecoder<T> decoder = decodesProtobuf(protobuf, response, true, request)
                            ? new ProtobufWatchEventDecoder<>(transport.protobuf(), type.type(), request)
                            : new WatchEventDecoder<>(transport.json(), type.type(), request);
                    return DecodedChunk.watchEvents(body, decoder);
                }));
        if (options.timeoutSeconds() == null) {
            return events;
        }
        Duration deadline = Duration.ofSeconds(options.timeoutSeconds()).plus(WATCH_GRACE);
        return Deadlines.failWhen(events, Mono.delay(deadline, transport.config().scheduler()),
                () -> new TransportException("GET " + path + ": the server did not end the watch within " + deadline, null));
    }

    /** The object named {@code name} in this handle's namespace. */
    public Mono<T> get(String name) {
        String path = requests.object(namespaceForName(), name);
        String request = "GET " + path;
        return negotiated(request, protobuf -> transport.exchangeOne(HttpMethod.GET, path, null, null,
                accept(protobuf, false), timeout, (response, content) -> {
                    if (!decodesProtobuf(protobuf, response, false, request)) {
                        return decodeJson(content, request);
                    }
                    return content.aggregate().asByteArray().map(body -> decodeProtobuf(body, request)).flux();
                }).flux()).next();
    }

    /** Creates {@code object} in its own namespace, or this handle's if it has none. */
    public Mono<T> create(T object) {
        return single(HttpMethod.POST, requests.create(namespaceOf(object)), encode(object), "application/json");
    }

    /** Replaces the object (optimistic concurrency: a stale {@code resourceVersion} gives a Conflict). */
    public Mono<T> replace(T object) {
        return single(HttpMethod.PUT, requests.replace(namespaceOf(object), nameOf(object), null), encode(object),
                "application/json");
    }

    /** Replaces the object's status through the {@code status} subresource. */
    public Mono<T> replaceStatus(T object) {
        return single(HttpMethod.PUT, requests.replace(namespaceOf(object), nameOf(object), "status"), encode(object),
                "application/json");
    }

    /** Patches the object named {@code name}; {@code body} is in the format {@code patchType} names. */
    public Mono<T> patch(String name, PatchType patchType, String body) {
        return patch(name, null, patchType, body, null, false);
    }

    /** Patches the status subresource of the object named {@code name}. */
    public Mono<T> patchStatus(String name, PatchType patchType, String body) {
        return patch(name, "status", patchType, body, null, false);
    }

    /**
     * Server-side apply of {@code object} (its intended state, as this field manager owns it).
     *
     * @param force take over fields owned by other managers instead of failing with a Conflict
     */
    public Mono<T> apply(T object, String fieldManager, boolean force) {
        Objects.requireNonNull(fieldManager, "fieldManager");
        return patch(nameOf(object), null, PatchType.APPLY, new String(encode(object), StandardCharsets.UTF_8),
                fieldManager, force, namespaceOf(object));
    }

    /**
     * Server-side apply of {@code object}'s status through the {@code status} subresource: it should hold
     * {@code apiVersion}, {@code kind}, its name (and namespace) and the status fields this field manager owns.
     *
     * @param force take over fields owned by other managers instead of failing with a Conflict
     */
    public Mono<T> applyStatus(T object, String fieldManager, boolean force) {
        Objects.requireNonNull(fieldManager, "fieldManager");
        return patch(nameOf(object), "status", PatchType.APPLY, new String(encode(object), StandardCharsets.UTF_8),
                fieldManager, force, namespaceOf(object));
    }

    /** Deletes the object named {@code name}; completes once the server accepted the deletion. */
    public Mono<Void> delete(String name) {
        return delete(name, DeleteOptions.none());
    }

    /**
     * Deletes the object named {@code name} as {@code options} say; completes once the server
     * accepted the deletion (the object may stay, marked, while finalizers or a grace period run).
     * A failed precondition fails with a {@link KubernetesApiException.Conflict}.
     */
    public Mono<Void> delete(String name, DeleteOptions options) {
        return deleteRequest(requests.object(namespaceForName(), name), options);
    }

    /**
     * Deletes every object of this handle's namespace (or all namespaces) that matches its label and
     * field selectors, each as {@link #delete(String, DeleteOptions)} would.
     */
    public Mono<Void> deleteCollection(DeleteOptions options) {
        return deleteRequest(requests.deleteCollection(namespace), options);
    }

    /** The options go in the body (see {@link ResourceRequests#deleteOptions}). */
    private Mono<Void> deleteRequest(String path, DeleteOptions options) {
        byte[] body = transport.json().encode(requests.deleteOptions(options));
        return transport.exchangeOne(HttpMethod.DELETE, path, body, "application/json", accept(false, false), timeout,
                (response, content) -> content.then().flux()).then();
    }

    private Mono<T> patch(String name, String subresource, PatchType patchType, String body, String fieldManager,
                          boolean force) {
        return patch(name, subresource, patchType, body, fieldManager, force, namespaceForName());
    }

    private Mono<T> patch(String name, String subresource, PatchType patchType, String body, String fieldManager,
                          boolean force, String ns) {
        return single(HttpMethod.PATCH, requests.patch(ns, name, subresource, fieldManager, force),
                body.getBytes(StandardCharsets.UTF_8), patchType.contentType());
    }

    private Mono<T> single(HttpMethod method, String path, byte[] body, String contentType) {
        return transport.exchangeOne(method, path, body, contentType, accept(false, false), timeout,
                (response, content) -> decodeJson(content, method.name() + " " + path));
    }

    private Flux<T> decodeJson(ByteBufFlux content, String request) {
        ValueDecoder<T> decoder = new ValueDecoder<>(transport.json(), type.type(), request);
        return content.doOnNext(buf -> decoder.feed(HttpTransport.nio(buf))).then(Mono.fromCallable(decoder::end)).flux();
    }

    private T decodeProtobuf(byte[] body, String request) {
        Object decoded;
        try {
            decoded = transport.protobuf().decode(body, 0, body.length, type.type());
        } catch (DecodeException e) {
            throw new DecodeException(request + ": " + e.getMessage(), e);
        }
        if (!type.type().isInstance(decoded)) {
            throw new DecodeException(request + ": the response holds a Status, not a " + type.kind(), null);
        }
        return type.type().cast(decoded);
    }

    /**
     * The Accept header of a request for an object or, if {@code list}, a list: on a metadata-only handle the
     * metadata representations (in protobuf first if {@code protobuf}); else {@code ACCEPT_PROTOBUF} when asking
     * for protobuf, or the transport's default (JSON).
     */
    private String accept(boolean protobuf, boolean list) {
        if (type.isMetadataOnly()) {
            return protobuf ? list ? ACCEPT_PROTOBUF_METADATA_LIST : ACCEPT_PROTOBUF_METADATA
                    : list ? ACCEPT_METADATA_LIST : ACCEPT_METADATA;
        }
        return protobuf ? ACCEPT_PROTOBUF : null;
    }

    /**
     * Whether reads ask for protobuf: a built-in kind, or any kind read as metadata, with a decoder, the server
     * not known to refuse it.
     */
    private boolean asksProtobuf() {
        return encoding == Encoding.PROTOBUF && KubernetesProtobuf.supports(type.type())
                && !transport.keepsToJson(resource());
    }

    /**
     * The resource, as the transport remembers which ones a server serves in JSON only; its metadata apart, a
     * representation a server converts to on its own (an aggregated API may have one in protobuf, not the other).
     */
    private String resource() {
        return type.apiVersion() + "/" + type.plural() + (type.isMetadataOnly() ? " as metadata" : "");
    }

    /**
     * {@code send(true)} when reads ask for protobuf, and {@code send(false)} once more if the server refused it
     * (406, 415, or a content type we cannot decode): the resource is then read in JSON by this client from now
     * on. Either refusal comes before any result, so nothing is emitted twice.
     */
    private <R> Flux<R> negotiated(String request, Function<Boolean, Flux<R>> send) {
        if (!asksProtobuf()) {
            return send.apply(false);
        }
        return send.apply(true).onErrorResume(ResourceClient::refusesProtobuf, e -> {
            transport.keepToJson(resource(), "protobuf refused (" + e.getMessage() + ")");
            return send.apply(false);
        });
    }

    private static boolean refusesProtobuf(Throwable e) {
        return e instanceof NotDecodable
                || e instanceof KubernetesApiException api && (api.code() == 406 || api.code() == 415);
    }

    /**
     * Whether to decode {@code response} as protobuf: only if asked for, by its {@code Content-Type}
     * ({@code ;stream=watch} for a watch). A JSON type, or none, is JSON.
     *
     * @throws NotDecodable if asked for protobuf and the type is neither
     */
    private static boolean decodesProtobuf(boolean asked, HttpClientResponse response, boolean watch, String request) {
        if (!asked) {
            return false;
        }
        String contentType = response.responseHeaders().get(HttpHeaderNames.CONTENT_TYPE);
        if (contentType == null || HttpTransport.mediaType(contentType).endsWith("json")) {
            return false;
        }
        boolean stream = contentType.replace(" ", "").toLowerCase(Locale.ROOT).contains(";stream=watch");
        if (HttpTransport.isProtobuf(contentType) && stream == watch) {
            return true;
        }
        throw new NotDecodable(request + ": a response in " + contentType + ", which this client cannot decode");
    }

    /** A response in a content type we did not ask for and cannot decode: the request is sent again in JSON. */
    static final class NotDecodable extends KubernetesClientException {

        private static final long serialVersionUID = 1L;

        NotDecodable(String message) {
            super(message, null);
        }

        @Override
        public boolean isRetriable() {
            return false;
        }
    }

    private byte[] encode(T object) {
        if (type.isMetadataOnly()) {
            throw new UnsupportedOperationException("a metadata-only handle on " + type.kind()
                    + " cannot send whole objects; patch or delete, or use the full resource");
        }
        return transport.json().encode(object);
    }

    private String namespaceForName() {
        if (type.namespaced() && namespace == null) {
            throw new IllegalStateException("choose a namespace with inNamespace(...) to address a " + type.kind()
                    + " by name");
        }
        return namespace;
    }

    private String namespaceOf(T object) {
        if (!type.namespaced()) {
            return null;
        }
        String own = object.getMetadata() == null ? null : object.getMetadata().getNamespace();
        return own != null && !own.isEmpty() ? own : namespaceForName();
    }

    private static String nameOf(KubernetesObject object) {
        if (object.getMetadata() == null || object.getMetadata().getName() == null) {
            throw new IllegalArgumentException("the object has no metadata.name");
        }
        return object.getMetadata().getName();
    }

    @Override
    public String toString() {
        return "ResourceClient[" + type.apiVersion() + "/" + type.plural()
                + (type.isMetadataOnly() ? " metadata" : "")
                + (namespace == null ? "" : " in " + namespace)
                + (labelSelector == null ? "" : " label " + labelSelector)
                + (fieldSelector == null ? "" : " field " + fieldSelector)
                + (dryRun ? " dry-run" : "") + (timeout == null ? "" : " timeout " + timeout) + "]";
    }
}
