package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.INTEGER;

import io.kubernetes.client.openapi.models.V1Pod;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.TestPki;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.http.Http2SslContextSpec;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.server.HttpServer;
import reactor.test.StepVerifier;

/** The flow-control windows the client grants an HTTP/2 server, as the server sees them. */
class Http2WindowsTest {

    private static final byte[] POD = Fixtures.bytes("pod.json");
    private static final TestPki PKI = new TestPki();

    /** What the server may send ahead of the client's reads, when it handles a request. */
    private record Credit(String protocol, int streamWindow, int connectionWindow) {
    }

    @Test
    void theServerMaySendFourMebibytesAheadOnAStreamAndAGibibyteOnTheConnection() {
        TestPki.Issued serverCert = PKI.server();
        Queue<Credit> credits = new ConcurrentLinkedQueue<>();
        try (FakeApiServer server = new FakeApiServer(HttpServer.create()
                .protocol(HttpProtocol.H2, HttpProtocol.HTTP11)
                .secure(spec -> spec.sslContext(Http2SslContextSpec.forServer(serverCert.privateKey(),
                        serverCert.certificate()))))) {
            server.handle((req, res) -> {
                req.withConnection(stream -> {
                    Http2Connection h2 = stream.channel().parent().pipeline().get(Http2FrameCodec.class).connection();
                    credits.add(new Credit(req.protocol(), h2.remote().flowController().initialWindowSize(),
                            h2.remote().flowController().windowSize(h2.connectionStream())));
                });
                return res.sendByteArray(Mono.just(POD));
            });
            ClientConfig config = ClientConfig.forServer(URI.create("https://127.0.0.1:" + server.port()))
                    .withNamespace("shop").withCaCertificates(List.of(PKI.ca().certificate()));
            try (KubernetesClient client = KubernetesClient.create(config)) {
                // the second request shares the first one's connection: the server has read the connection's
                // WINDOW_UPDATE by the time it reads that request's headers, whenever in the first it was sent
                for (int i = 0; i < 2; i++) {
                    StepVerifier.create(client.resource(V1Pod.class).get("web")).expectNextCount(1).expectComplete()
                            .verify(Duration.ofSeconds(10));
                }
            }
        }
        assertThat(credits).hasSize(2).allSatisfy(c -> {
            assertThat(c.protocol()).isEqualTo("HTTP/2.0");
            assertThat(c.streamWindow()).isEqualTo(Http2Windows.STREAM_WINDOW);
        });
        // widened once, not once per stream: the first response's few bytes aside, the whole window is open
        assertThat(credits).last().extracting(Credit::connectionWindow, INTEGER)
                .isBetween(Http2Windows.CONNECTION_WINDOW - POD.length - 1024, Http2Windows.CONNECTION_WINDOW);
    }
}
