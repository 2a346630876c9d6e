/**
 * JUnit 5 extensions: a simulated API server per test, a real kube-apiserver for e2e tests, and a guard that
 * fails a test during which a Netty event loop was busy too long.
 */
module io.reactiveinformer.test.junit {
    requires transitive io.reactiveinformer.test;
    requires transitive org.junit.jupiter.api;
    requires org.junit.platform.commons;
    requires transitive io.netty.common;
    requires io.netty.transport;
    requires reactor.netty.core;
    requires reactor.netty.http;
    requires java.management;

    exports io.reactiveinformer.test.junit;
}
