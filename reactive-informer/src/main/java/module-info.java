/**
 * Kubernetes client, reflector, cache and shared informers for Project Reactor. Every package is API;
 * internals are package-private inside them.
 */
module io.reactiveinformer {
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires transitive io.kubernetes.client.java.api;
    requires transitive tools.jackson.databind;
    requires com.fasterxml.jackson.annotation;
    requires tools.jackson.dataformat.yaml;
    requires reactor.netty.http;
    requires reactor.netty.core;
    requires io.netty.buffer;
    requires io.netty.codec.http;
    requires io.netty.codec.http2;
    requires io.netty.handler;
    requires io.netty.transport;
    requires io.netty.common;
    requires io.netty.codec;
    requires org.bouncycastle.pkix;
    requires org.bouncycastle.provider;
    requires org.slf4j;
    requires static micrometer.core;
    requires static reactor.blockhound;
    requires com.google.gson;
    requires com.google.protobuf;

    exports io.reactiveinformer.api;
    exports io.reactiveinformer.codec;
    exports io.reactiveinformer.config;
    exports io.reactiveinformer.client;
    exports io.reactiveinformer.watch;
    exports io.reactiveinformer.cache;
    exports io.reactiveinformer.informer;

    provides reactor.blockhound.integration.BlockHoundIntegration
            with io.reactiveinformer.client.HttpTransport.BlockHoundSupport,
                    io.reactiveinformer.watch.IdleWatchGuard.BlockHoundSupport,
                    io.reactiveinformer.informer.DeliveryScheduler.BlockHoundSupport;

    // DynamicObject and PartialObjectMetadata are bound by Jackson
    opens io.reactiveinformer.api to tools.jackson.databind;
}
