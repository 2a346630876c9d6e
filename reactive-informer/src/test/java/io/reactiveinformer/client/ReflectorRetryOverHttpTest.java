package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.Reflector;
import io.reactiveinformer.watch.ReflectorEvent;
import io.reactiveinformer.watch.ReflectorOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

/**
 * A reflector's list retries through the library's own client on real threads, against a closed loopback port
 * (connection refused within microseconds) and a server refusing every list: with a constant backoff of
 * 200 ms (jittered up to 400 ms) it tries about once per 200 ms over a 2 s window, however fast the failures
 * come back, also when the server says {@code Retry-After: 0} (before the backoff became the floor under
 * Retry-After, that answer was retried at once).
 */
@Timeout(30)
class ReflectorRetryOverHttpTest {

    private static final Duration PERIOD = Duration.ofMillis(200);
    private static final Duration WINDOW = Duration.ofSeconds(2);
    /** The most tries in the window at one per period, with slack for late timers and the window's ends. */
    private static final int AT_MOST = (int) (WINDOW.toMillis() * 3 / (PERIOD.toMillis() * 2)) + 2;

    private final FakeApiServer server = new FakeApiServer();
    private KubernetesClient client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        server.close();
    }

    @Test
    void againstAClosedPortItTriesAboutOncePerBackoffPeriod() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }

        List<ReflectorEvent<V1ConfigMap>> events = run(URI.create("http://127.0.0.1:" + port));

        assertThat(events).allMatch(e -> e instanceof ReflectorEvent.Failed<V1ConfigMap>);
        assertThat(events.size()).as("tries in %s", WINDOW).isBetween(2, AT_MOST);
    }

    static Stream<String> refusals() {
        return Stream.of("403", "500", "429 with Retry-After 0");
    }

    @ParameterizedTest(name = "lists answered {0}")
    @MethodSource("refusals")
    void againstARefusingServerItTriesAboutOncePerBackoffPeriod(String refusal) {
        int code = Integer.parseInt(refusal.substring(0, 3));
        server.handle((req, res) -> {
            res.status(code).header("Content-Type", "application/json");
            if (code == 429) {
                res.header("Retry-After", "0");
            }
            return res.sendString(Mono.just("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":"
                    + code + "}"));
        });

        List<ReflectorEvent<V1ConfigMap>> events = run(URI.create(server.url()));

        assertThat(events).allMatch(e -> e instanceof ReflectorEvent.Failed<V1ConfigMap>);
        assertThat(server.requests().size()).as("tries in %s", WINDOW).isBetween(2, AT_MOST);
    }

    /** The reflector's events over the window, with a constant backoff of {@link #PERIOD}. */
    private List<ReflectorEvent<V1ConfigMap>> run(URI url) {
        client = KubernetesClient.create(ClientConfig.forServer(url).withNamespace("default"));
        ReflectorOptions options = ReflectorOptions.defaults().withStreamingList(false)
                .withBackoff(Backoff.defaults().withInitial(PERIOD).withFactor(1.0).withCap(PERIOD));
        Reflector<V1ConfigMap> reflector = Reflector.builder(ListerWatcher.of(client.resource(V1ConfigMap.class)))
                .options(options).build();
        return reflector.events().take(WINDOW).collectList().block(Duration.ofSeconds(10));
    }
}
