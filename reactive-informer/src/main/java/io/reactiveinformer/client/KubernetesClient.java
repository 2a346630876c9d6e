package io.reactiveinformer.client;

import io.kubernetes.client.common.KubernetesObject;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.codec.KubernetesJson;
import io.reactiveinformer.config.ClientConfig;
import java.util.Objects;
import java.util.function.UnaryOperator;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;
import reactor.core.publisher.Mono;

/**
 * The entry point: one connection pool and TLS setup for one API server, and typed handles on its
 * resources.
 *
 * <pre>{@code
 * try (KubernetesClient client = KubernetesClient.create(ClientConfig.load())) {
 *     client.resource(V1Pod.class).inNamespace("shop").watch(WatchOptions.from("0"))...
 * }
 * }</pre>
 *
 * <p>Thread-safe; share one per API server. {@link #close()} closes pooled connections, which ends
 * any request still running.
 */
public final class KubernetesClient implements AutoCloseable {

    private final HttpTransport transport;

    private KubernetesClient(HttpTransport transport) {
        this.transport = transport;
    }

    public static KubernetesClient create(ClientConfig config) {
        return create(config, KubernetesJson.defaults());
    }

    /** A client whose objects map through {@code json} (e.g. with extra Jackson modules for CRD POJOs). */
    public static KubernetesClient create(ClientConfig config, KubernetesJson json) {
        return new KubernetesClient(new HttpTransport(config, json));
    }

    /** A client with more than the configuration: mapping, HTTP client customisation, shared Netty resources. */
    public static Builder builder(ClientConfig config) {
        return new Builder(config);
    }

    /**
     * The resource of an official model class ({@code V1Pod.class}), in the configuration's namespace
     * when namespaced.
     */
    public <T extends KubernetesObject> ResourceClient<T> resource(Class<T> model) {
        return resource(ResourceType.of(model));
    }

    /** A resource described explicitly (custom resources, {@link ResourceType#dynamic}). */
    public <T extends KubernetesObject> ResourceClient<T> resource(ResourceType<T> type) {
        return new ResourceClient<>(transport, type, type.namespaced() ? transport.config().namespace() : null, null, null);
    }

    /**
     * The metadata of the objects of an official model class ({@code V1Secret.class}), as
     * {@link PartialObjectMetadata}: client-go's metadata client.
     */
    public ResourceClient<PartialObjectMetadata> metadata(Class<? extends KubernetesObject> model) {
        return metadata(ResourceType.of(model));
    }

    /** The metadata of the objects of any resource, as {@link PartialObjectMetadata}. */
    public ResourceClient<PartialObjectMetadata> metadata(ResourceType<?> type) {
        return resource(type.metadataOnly());
    }

    /**
     * Sends {@code request} as is and answers with the whole response body; a code other than 2xx
     * fails with a {@link KubernetesApiException}. Emits on a Netty event loop.
     */
    public Mono<RawResponse> raw(RawRequest request) {
        return transport.exchangeOne(HttpMethod.valueOf(request.method()), request.path(), request.body(),
                request.contentType(), "*/*", request.timeout(), (response, content) -> content.aggregate().asByteArray()
                        .defaultIfEmpty(new byte[0])
                        .map(bytes -> new RawResponse(response.status().code(),
                                response.responseHeaders().get(HttpHeaderNames.CONTENT_TYPE), bytes))
                        .flux());
    }

    public ClientConfig config() {
        return transport.config();
    }

    public KubernetesJson json() {
        return transport.json();
    }

    /**
     * {@link #close()} closes the connection pool the client made; a {@linkplain Builder#connectionProvider
     * shared pool} stays open for its owner to close.
     */
    @Override
    public void close() {
        transport.dispose();
    }

    /** Configures a {@link KubernetesClient}. Not thread-safe. */
    public static final class Builder {

        private final ClientConfig config;
        private KubernetesJson json = KubernetesJson.defaults();
        private ConnectionProvider connectionProvider;
        private LoopResources loopResources;
        private UnaryOperator<HttpClient> httpClientCustomizer = UnaryOperator.identity();

        private Builder(ClientConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** The object mapping, e.g. with extra Jackson modules for CRD POJOs. */
        public Builder json(KubernetesJson json) {
            this.json = Objects.requireNonNull(json, "json");
            return this;
        }

        /**
         * A connection pool the application owns (shared with its other clients); the client does not
         * close it. Size it for one connection per watch. Default: a pool of the client's own.
         */
        public Builder connectionProvider(ConnectionProvider connectionProvider) {
            this.connectionProvider = Objects.requireNonNull(connectionProvider, "connectionProvider");
            return this;
        }

        /** Event loops the application owns (a web server's, say). Default: Reactor Netty's global loops. */
        public Builder loopResources(LoopResources loopResources) {
            this.loopResources = Objects.requireNonNull(loopResources, "loopResources");
            return this;
        }

        /**
         * Applied to the Reactor Netty {@code HttpClient} after the client configured base URL, TLS,
         * pool and headers: a proxy, a wiretap, metrics, more headers. Customisers added here compose
         * in order. It must keep the base URL and TLS.
         */
        public Builder httpClient(UnaryOperator<HttpClient> customizer) {
            Objects.requireNonNull(customizer, "customizer");
            UnaryOperator<HttpClient> before = httpClientCustomizer;
            this.httpClientCustomizer = c -> customizer.apply(before.apply(c));
            return this;
        }

        public KubernetesClient build() {
            return new KubernetesClient(new HttpTransport(config, json, connectionProvider, loopResources,
                    httpClientCustomizer));
        }
    }
}
