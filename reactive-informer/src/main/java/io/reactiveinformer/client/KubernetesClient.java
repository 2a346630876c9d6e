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

    @Override
    public void close() {
        transport.dispose();
    }
}
