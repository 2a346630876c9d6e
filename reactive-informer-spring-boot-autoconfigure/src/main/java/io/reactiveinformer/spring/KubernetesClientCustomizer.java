package io.reactiveinformer.spring;

import io.reactiveinformer.client.KubernetesClient;

/**
 * Adjusts the auto-configured {@link KubernetesClient} before it is built: an {@code HttpClient}
 * customiser (proxy, wiretap, metrics), shared Netty resources, extra Jackson modules. Every bean of
 * this type applies, in {@code @Order}.
 */
@FunctionalInterface
public interface KubernetesClientCustomizer {

    void customize(KubernetesClient.Builder builder);
}
