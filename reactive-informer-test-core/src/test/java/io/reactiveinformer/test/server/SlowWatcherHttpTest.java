package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.test.Convergence;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

/**
 * A watcher that stops reading: once its connection is full the server stops feeding it, and when
 * the history moves past it the stream ends with a 410 ERROR event instead of buffering, followed by
 * a well-formed last chunk.
 *
 * <p>The client is a plain socket read on the test thread with a strict chunked-encoding reader: an
 * HTTP client library would hide a malformed frame behind its own exception (this test once failed
 * with Netty's {@code InvalidChunkTerminationException}), and would read ahead while the test wants
 * the connection to stay full.
 */
class SlowWatcherHttpTest {

    @Test
    void watcherThatStopsReadingIsClosedWith410() throws IOException {
        ClusterState state = ClusterState.builder().historyLimit(100).build();
        String big = "x".repeat(32 * 1024);
        try (SimulatedApiServer server = SimulatedApiServer.start(state); Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
            socket.getOutputStream().write(("GET /api/v1/namespaces/shop/configmaps?watch=true&resourceVersion=1 "
                    + "HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            Convergence.until(() -> state.watcherCount() == 1, Duration.ofSeconds(10), Schedulers.parallel()).block();

            // Nothing reads the socket: the changes fill it, then the history leaves the watcher behind.
            // Changes stop as soon as the server drops the watcher, so the work is what the buffers hold
            // (about 6 MB on loopback) plus the history, not a fixed count sized for the worst case.
            int changes = 0;
            while (state.watcherCount() == 1) {
                assertThat(changes).as("the server never dropped the watcher").isLessThan(5_000);
                state.create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("shop").name("m" + changes++))
                        .data(Map.of("payload", big)));
            }

            InputStream in = new BufferedInputStream(socket.getInputStream());
            assertThat(readHead(in)).startsWith("HTTP/1.1 200").containsIgnoringCase("transfer-encoding: chunked");
            String[] lines = readChunkedBody(in).split("\n");
            assertThat(lines.length).isLessThan(changes);
            assertThat(lines[lines.length - 1]).startsWith("{\"type\":\"ERROR\"").contains("\"code\":410");
            for (int i = 0; i < lines.length - 1; i++) {
                assertThat(lines[i]).startsWith("{\"type\":\"ADDED\"");
            }
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            assertThat(b).as("the connection ended inside the response head").isNotEqualTo(-1);
            head.write(b);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** The body of a chunked response, failing on any malformed frame and on a missing last chunk. */
    private static String readChunkedBody(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (;;) {
            StringBuilder size = new StringBuilder();
            for (int b = in.read(); b != '\r'; b = in.read()) {
                assertThat(b).as("the connection ended in a chunk header after %d body bytes", body.size())
                        .isNotEqualTo(-1);
                size.append((char) b);
            }
            assertThat(in.read()).as("LF after a chunk header").isEqualTo('\n');
            int length = Integer.parseInt(size.toString(), 16);
            byte[] data = in.readNBytes(length);
            assertThat(data.length).as("a chunk of %d bytes cut after %d body bytes", length, body.size())
                    .isEqualTo(length);
            assertThat(new byte[] {(byte) in.read(), (byte) in.read()})
                    .as("CR LF after a chunk of %d bytes at body offset %d", length, body.size())
                    .containsExactly('\r', '\n');
            if (length == 0) {
                return body.toString(StandardCharsets.UTF_8);
            }
            body.writeBytes(data);
        }
    }
}
