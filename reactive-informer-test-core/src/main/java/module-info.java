/** The JUnit-free test kit: simulated API server, in-memory ListerWatcher, churn and convergence helpers. */
module io.reactiveinformer.test {
    requires transitive io.reactiveinformer;
    requires transitive reactor.core;
    requires transitive io.kubernetes.client.java.api;
    requires transitive tools.jackson.databind;
    requires tools.jackson.core;
    requires tools.jackson.dataformat.yaml;
    requires reactor.netty.core;
    requires reactor.netty.http;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;
    requires io.netty.codec.http;
    requires java.net.http;

    exports io.reactiveinformer.test;
    exports io.reactiveinformer.test.server;
    exports io.reactiveinformer.test.apiserver;
}
