package io.reactiveinformer.client;

import io.kubernetes.client.openapi.models.V1Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.reactiveinformer.api.AuthenticationException;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.FencedWriteException;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.api.WriteFence;
import io.reactiveinformer.codec.KubernetesJson;
import io.reactiveinformer.codec.KubernetesProtobuf;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.ConfigException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.Http2SslContextSpec;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientResponse;
import reactor.netty.http.client.PrematureCloseException;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * The HTTP layer: one Reactor Netty client with the configuration's TLS and a connection pool sized
 * for many long watches, plus what every request shares: the bearer token, error statuses turned
 * into typed exceptions, failures turned into {@link TransportException}s naming the request.
 *
 * <p>Threading: responses are decoded on the Netty event loop of their connection, in the order the
 * bytes arrive; nothing here blocks. Obtaining a token may hop to boundedElastic (see
 * {@link io.reactiveinformer.config.Credentials}); the request is then sent from there. A TLS
 * handshake's delegated tasks (certificate checks, signatures) run on boundedElastic
 * ({@link OffloadingSslContext}).
 */
final class HttpTransport {

    /** Enough for hundreds of concurrent watches, each holding an HTTP/1.1 connection. */
    private static final Logger log = LoggerFactory.getLogger(HttpTransport.class);
    private static final int MAX_CONNECTIONS = 1024;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_ERROR_BODY = 64 * 1024;

    private final ClientConfig config;
    private final KubernetesJson json;
    private final KubernetesProtobuf protobuf;
    /** The resources ({@code apiVersion/plural}) a server would not serve in protobuf: JSON for them from then on. */
    private final Set<String> jsonOnly = ConcurrentHashMap.newKeySet();
    private final ConnectionProvider pool;
    /** Whether {@link #dispose()} closes the pool: not when the application shares its own. */
    private final boolean ownsPool;
    private final HttpClient http;
    private final String basePath;

    HttpTransport(ClientConfig config, KubernetesJson json) {
        this(config, json, null, null, UnaryOperator.identity());
    }

    /**
     * @param sharedPool  a pool owned by the application, or {@code null} for one of our own
     * @param loops       event loops owned by the application, or {@code null} for Reactor Netty's global ones
     * @param customizer  applied last to the configured client (proxy, wiretap, metrics, headers)
     */
    HttpTransport(ClientConfig config, KubernetesJson json, ConnectionProvider sharedPool, LoopResources loops,
                  UnaryOperator<HttpClient> customizer) {
        this.config = config;
        this.json = json;
        this.protobuf = KubernetesProtobuf.of(json);
        URI server = config.server();
        String path = server.getRawPath() == null ? "" : server.getRawPath();
        this.basePath = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        this.ownsPool = sharedPool == null;
        this.pool = sharedPool != null ? sharedPool : ConnectionProvider.builder("reactive-informer")
                .maxConnections(MAX_CONNECTIONS)
                .pendingAcquireMaxCount(-1)
                .maxIdleTime(Duration.ofSeconds(90))
                .build();
        HttpClient client = HttpClient.create(pool)
                .baseUrl(server.getScheme() + "://" + server.getRawAuthority())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) CONNECT_TIMEOUT.toMillis())
                .option(ChannelOption.SO_KEEPALIVE, true)
                .compress(true)
                .headers(h -> h.set(HttpHeaderNames.ACCEPT, "application/json")
                        .set(HttpHeaderNames.USER_AGENT, "reactive-informer/0.1"));
        if ("https".equals(server.getScheme())) {
            SslContext tls = tlsContext();
            client = Http2Windows.grant(client.protocol(HttpProtocol.H2, HttpProtocol.HTTP11)
                    .secure(spec -> spec.sslContext(tls)));
        }
        if (loops != null) {
            client = client.runOn(loops);
        }
        this.http = customizer.apply(client);
    }

    /** The configuration's TLS, with the handshake's CPU-heavy steps on boundedElastic, not on an event loop. */
    private SslContext tlsContext() {
        try {
            return new OffloadingSslContext(Http2SslContextSpec.forClient().configure(this::configureTls).sslContext(),
                    task -> Schedulers.boundedElastic().schedule(task));
        } catch (SSLException e) {
            throw new ConfigException("the TLS configuration for " + config.server() + " is unusable: " + e.getMessage(),
                    e);
        }
    }

    private SslContextBuilder configureTls(SslContextBuilder builder) {
        if (config.insecureSkipTlsVerify()) {
            log.warn("TLS verification of {} is off (insecure-skip-tls-verify): anyone between this client and the "
                    + "server can impersonate it and read the credentials sent", config.server());
            builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
        } else if (!config.caCertificates().isEmpty()) {
            builder.trustManager(config.caCertificates());
        }
        if (config.clientKey() != null) {
            builder.keyManager(config.clientKey(), config.clientCertificates());
        }
        return builder;
    }

    KubernetesJson json() {
        return json;
    }

    ClientConfig config() {
        return config;
    }

    KubernetesProtobuf protobuf() {
        return protobuf;
    }

    /** Whether the server refused protobuf for {@code resource} before (see {@link #keepToJson}). */
    boolean keepsToJson(String resource) {
        return jsonOnly.contains(resource);
    }

    /**
     * From now on {@code resource} is asked for in JSON only, by every handle of this client: the server refused
     * protobuf for it ({@code why}). Said once per resource, loudly, for it costs the resource protobuf's speed.
     */
    void keepToJson(String resource, String why) {
        if (jsonOnly.add(resource)) {
            log.warn("{}: {}; reading it in JSON from now on", resource, why);
        }
    }

    void dispose() {
        if (ownsPool) {
            pool.dispose();
        }
    }

    /**
     * Sends one request and hands a successful response's body to {@code decode}, which must consume
     * it (each buffer is released once its {@code onNext} returns).
     *
     * @param pathAndQuery path below the server URL, with its encoded query
     * @param body         the request body, or {@code null}
     * @param accept       the {@code Accept} header, or {@code null} for {@code application/json}
     */
    <R> Flux<R> exchange(HttpMethod method, String pathAndQuery, byte[] body, String contentType, String accept,
                         BiFunction<HttpClientResponse, ByteBufFlux, Flux<R>> decode) {
        String request = method.name() + " " + pathAndQuery;
        boolean read = HttpMethod.GET.equals(method);
        return Flux.deferContextual(context -> {
            WriteFence fence = read ? null : WriteFence.in(context);
            if (fence != null && !fence.admits()) {
                return Flux.error(fenced(request, fence));
            }
            return config.credentials().bearerToken()
                    .map(Optional::of)
                    .defaultIfEmpty(Optional.empty())
                    .onErrorMap(ConfigException.class,
                            e -> new AuthenticationException(request + ": no credentials: " + e.getMessage(), e))
                    .flatMapMany(token -> send(method, pathAndQuery, body, contentType, accept, token, decode, read,
                            fence));
        }).onErrorMap(e -> e instanceof Exception && !(e instanceof KubernetesClientException),
                e -> new TransportException(request + ": " + describe(e), e));
    }

    private static FencedWriteException fenced(String request, WriteFence fence) {
        return new FencedWriteException(request + ": not sent: " + fence.authority()
                + " has ended, so this write no longer has the authority it was made under");
    }

    /**
     * One attempt of a request; with {@code resendIfUnanswered}, one more when the connection closes before
     * any response. That is how a pooled connection the server closed while it was idle (a restart, an idle
     * timeout) fails when the client takes it before it has read the close: nothing was served, and Go's
     * HTTP client (so client-go) sends an idempotent request again in that case. Only GETs are resent: a
     * write the server received may have been applied. Reactor Netty does not say whether the connection
     * came from the pool, so a new one closed unanswered is tried once more too: one attempt, never a loop.
     */
    private <R> Flux<R> send(HttpMethod method, String pathAndQuery, byte[] body, String contentType, String accept,
                             Optional<String> token, BiFunction<HttpClientResponse, ByteBufFlux, Flux<R>> decode,
                             boolean resendIfUnanswered, WriteFence fence) {
        String request = method.name() + " " + pathAndQuery;
        return Flux.defer(() -> {
            AtomicBoolean answered = new AtomicBoolean();
            return http
                    .headers(h -> {
                        token.ifPresent(t -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + t));
                        if (contentType != null) {
                            h.set(HttpHeaderNames.CONTENT_TYPE, contentType);
                        }
                        if (accept != null) {
                            h.set(HttpHeaderNames.ACCEPT, accept);
                        }
                    })
                    .request(method)
                    .uri(basePath + pathAndQuery)
                    .send((req, out) -> {
                        // The last moment before the request's first byte: a connection can take long to get
                        // (a handshake, a full pool), and the fence's authority may have ended meanwhile.
                        if (fence != null && !fence.admits()) {
                            return Mono.error(fenced(request, fence));
                        }
                        return body == null ? out : out.sendByteArray(Mono.just(body));
                    })
                    .response((response, content) -> {
                        answered.set(true);
                        int code = response.status().code();
                        if (code >= 200 && code < 300) {
                            return decode.apply(response, content);
                        }
                        if (code == 401) {
                            token.ifPresent(config.credentials()::invalidate);
                        }
                        return errorBody(content).flatMapMany(bytes -> Mono.error(apiError(request, response, bytes)));
                    })
                    .onErrorResume(PrematureCloseException.class, e -> {
                        if (!resendIfUnanswered || answered.get()) {
                            return Flux.error(e);
                        }
                        log.debug("{}: the connection closed before a response, sending it again", request);
                        return send(method, pathAndQuery, body, contentType, accept, token, decode, false, fence);
                    });
        });
    }

    /**
     * A request whose whole exchange must finish within {@code timeout}, or the configured request
     * timeout when it is {@code null}.
     */
    <R> Mono<R> exchangeOne(HttpMethod method, String pathAndQuery, byte[] body, String contentType, String accept,
                            Duration requestTimeout, BiFunction<HttpClientResponse, ByteBufFlux, Flux<R>> decode) {
        Duration timeout = requestTimeout == null ? config.requestTimeout() : requestTimeout;
        return exchange(method, pathAndQuery, body, contentType, accept, decode)
                .next()
                .timeout(timeout, config.scheduler())
                .onErrorMap(TimeoutException.class, e -> new TransportException(
                        method.name() + " " + pathAndQuery + ": no complete response within " + timeout, e));
    }

    /** The bytes of a buffer as a ByteBuffer view, without copying when the buffer is contiguous. */
    static ByteBuffer nio(ByteBuf buf) {
        return buf.nioBufferCount() == 1 ? buf.nioBuffer() : ByteBuffer.wrap(ByteBufUtil.getBytes(buf));
    }

    private static Mono<byte[]> errorBody(ByteBufFlux content) {
        return content.aggregate()
                .map(buf -> ByteBufUtil.getBytes(buf, buf.readerIndex(), Math.min(buf.readableBytes(), MAX_ERROR_BODY)))
                .defaultIfEmpty(new byte[0]);
    }

    private KubernetesApiException apiError(String request, HttpClientResponse response, byte[] body) {
        V1Status status = null;
        if (body.length > 0) {
            try {
                if (isProtobuf(response.responseHeaders().get(HttpHeaderNames.CONTENT_TYPE))) {
                    // asked for with protobuf, the server writes its Status so too (a v1 Status in its envelope)
                    if (protobuf.decode(body, 0, body.length, V1Status.class) instanceof V1Status decoded) {
                        status = decoded;
                    }
                } else {
                    V1Status decoded = json.decode(body, V1Status.class);
                    if ("Status".equals(decoded.getKind()) || decoded.getCode() != null) {
                        status = decoded;
                    }
                }
            } catch (DecodeException notAStatus) {
                // a proxy's HTML or plain-text page: the HTTP code alone classifies it
            }
        }
        return KubernetesApiException.of(request, response.status().code(), status,
                retryAfter(response.responseHeaders().get(HttpHeaderNames.RETRY_AFTER)));
    }

    /** Whether {@code contentType} is kube-apiserver's protobuf, whatever its parameters ({@code null}: not). */
    static boolean isProtobuf(String contentType) {
        return contentType != null && mediaType(contentType).equals(KubernetesProtobuf.MEDIA_TYPE);
    }

    /** The type and subtype of a {@code Content-Type}, lower case, without parameters. */
    static String mediaType(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }

    /** {@code Retry-After} as delta-seconds or an HTTP date (measured against the scheduler's clock). */
    private Duration retryAfter(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        String value = header.trim();
        try {
            return Duration.ofSeconds(Math.max(0, Long.parseLong(value)));
        } catch (NumberFormatException notSeconds) {
            try {
                long at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
                return Duration.ofMillis(Math.max(0, at - config.scheduler().now(TimeUnit.MILLISECONDS)));
            } catch (DateTimeParseException notADate) {
                return null;
            }
        }
    }

    private static String describe(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLHandshakeException handshake) {
                return "TLS handshake failed, the server's certificate is not trusted or the connection was refused ("
                        + handshake.getMessage() + "); check certificate-authority(-data) in the kubeconfig";
            }
        }
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /**
     * Tells BlockHound (when an application installs it; found through {@code META-INF/services}) that two
     * short lock handovers on the event loop are not blocking calls:
     * <ul>
     *   <li>the JDK's TLS engine reading its session's buffer sizes: Netty asks for them on every wrap and
     *   unwrap; {@code SSLSessionImpl} guards them with a {@code ReentrantLock} held only to read two fields.
     *   Netty's own integration covers {@code SSLEngineImpl}'s wrap and unwrap but not this call from
     *   {@code SslHandler.allocateWrapBuffer};</li>
     *   <li>Netty 4.2's default allocator retiring a magazine ({@code AdaptivePoolingAllocator$Magazine.free},
     *   from {@code tryExpandMagazines} when allocations contend): it takes the magazine's
     *   {@code StampedLock}, held by other threads only for a pointer-bump allocation. Netty's integration
     *   allows the allocator's thread-local set-up, not this. A loaded flake-hunt run met it when a socket
     *   read allocated its buffer.</li>
     * </ul>
     * In both the park is a contended handover of a lock held for a few instructions, never I/O.
     */
    public static final class BlockHoundSupport implements BlockHoundIntegration {

        @Override
        public void applyTo(BlockHound.Builder builder) {
            builder.allowBlockingCallsInside("sun.security.ssl.SSLSessionImpl", "getPacketBufferSize");
            builder.allowBlockingCallsInside("sun.security.ssl.SSLSessionImpl", "getApplicationBufferSize");
            builder.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free");
        }
    }
}
