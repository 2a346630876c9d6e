package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.netty.handler.ssl.ClientAuth;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.TestPki;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;
import reactor.netty.http.Http2SslContextSpec;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.server.HttpServer;
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
}
