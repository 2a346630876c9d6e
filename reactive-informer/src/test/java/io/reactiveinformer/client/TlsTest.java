package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.TestPki;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;
import reactor.netty.http.Http2SslContextSpec;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.ConnectionProvider;
import reactor.test.StepVerifier;

/** Mutual TLS against a server whose CA and certificates are generated for the test. */
class TlsTest {

    private static final byte[] POD = Fixtures.bytes("pod.json");
    private static final TestPki PKI = new TestPki();

    @ParameterizedTest
    @ValueSource(strings = {"RSA", "EC"})
    void mutualTlsWithGeneratedCaAndClientCertificate(String keyType) {
        TestPki.Issued serverCert = PKI.server();
        TestPki.Issued clientCert = PKI.client(keyType.equals("EC"));
        try (FakeApiServer server = new FakeApiServer(HttpServer.create()
                .protocol(HttpProtocol.H2, HttpProtocol.HTTP11)
                .secure(spec -> spec.sslContext(Http2SslContextSpec.forServer(serverCert.privateKey(), serverCert.certificate())
                        .configure(b -> b.trustManager(PKI.ca().certificate()).clientAuth(ClientAuth.REQUIRE)))))) {
            server.handle((req, res) -> res.sendByteArray(Mono.just(POD)));
            ClientConfig base = ClientConfig.forServer(URI.create("https://127.0.0.1:" + server.port())).withNamespace("shop");

            try (KubernetesClient client = KubernetesClient.create(base.withCaCertificates(List.of(PKI.ca().certificate()))
                    .withClientCertificate(List.of(clientCert.certificate()), clientCert.privateKey()))) {
                StepVerifier.create(client.resource(V1Pod.class).get("web"))
                        .expectNextMatches(p -> p.getMetadata().getName().startsWith("web-"))
                        .verifyComplete();
            }
            try (KubernetesClient untrusting = KubernetesClient.create(base.withClientCertificate(
                    List.of(clientCert.certificate()), clientCert.privateKey()))) {
                StepVerifier.create(untrusting.resource(V1Pod.class).get("web"))
                        .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(TransportException.class)
                                .hasMessageContaining("GET /api/v1/namespaces/shop/pods/web"))
                        .verify(Duration.ofSeconds(10));
            }
        }
    }

    /**
     * The handshake's delegated tasks (the server's chain checked, the client key's signature) run on the
     * context's executor, never on the event loop, and the offloading context still negotiates HTTP/2.
     */
    @ParameterizedTest
    @ValueSource(strings = {"RSA", "EC"})
    void theHandshakesDelegatedTasksRunOffTheEventLoop(String keyType) throws Exception {
        TestPki.Issued serverCert = PKI.server();
        TestPki.Issued clientCert = PKI.client(keyType.equals("EC"));
        Queue<String> protocols = new ConcurrentLinkedQueue<>();
        try (FakeApiServer server = new FakeApiServer(HttpServer.create()
                .protocol(HttpProtocol.H2, HttpProtocol.HTTP11)
                .secure(spec -> spec.sslContext(Http2SslContextSpec.forServer(serverCert.privateKey(), serverCert.certificate())
                        .configure(b -> b.trustManager(PKI.ca().certificate()).clientAuth(ClientAuth.REQUIRE)))))) {
            server.handle((req, res) -> {
                protocols.add(req.protocol());
                return res.sendString(Mono.just("ok"));
            });
            Queue<String> taskThreads = new ConcurrentLinkedQueue<>();
            ExecutorService tasks = Executors.newSingleThreadExecutor(r -> new Thread(r, "tls-tasks"));
            SslContext tls = new OffloadingSslContext(Http2SslContextSpec.forClient()
                    .configure(b -> b.trustManager(PKI.ca().certificate())
                            .keyManager(clientCert.privateKey(), clientCert.certificate()))
                    .sslContext(), task -> tasks.execute(() -> {
                        taskThreads.add(Thread.currentThread().getName());
                        task.run();
                    }));
            try {
                HttpClient client = HttpClient.create(ConnectionProvider.newConnection())
                        .protocol(HttpProtocol.H2, HttpProtocol.HTTP11).secure(spec -> spec.sslContext(tls));
                StepVerifier.create(client.get().uri("https://127.0.0.1:" + server.port() + "/")
                                .responseContent().aggregate().asString())
                        .expectNext("ok").expectComplete().verify(Duration.ofSeconds(10));
            } finally {
                tasks.shutdownNow();
            }
            assertThat(taskThreads).as("delegated tasks").isNotEmpty().containsOnly("tls-tasks");
            assertThat(protocols).containsExactly("HTTP/2.0");
        }
    }
}
