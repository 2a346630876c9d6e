package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.config.ClientConfig;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;
import reactor.test.StepVerifier;

/** An application customises the HTTP client and shares its own pool and event loops with the client. */
class KubernetesClientBuilderTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final byte[] POD = Fixtures.bytes("pod.json");

    private final FakeApiServer server = new FakeApiServer();
    private final ConnectionProvider pool = ConnectionProvider.create("app-pool", 4);
    private final LoopResources loops = LoopResources.create("app-loop", 1, true);

    @AfterEach
    void close() {
        server.close();
        pool.dispose();
        loops.dispose();
    }

    @Test
    void customizersRunInOrderAndTheSharedPoolAndLoopsServeRequests() {
        server.handle((req, res) -> res.header("Content-Type", "application/json").sendByteArray(Mono.just(POD)));
        KubernetesClient client = KubernetesClient.builder(ClientConfig.forServer(URI.create(server.url())))
                .connectionProvider(pool)
                .loopResources(loops)
                .httpClient(http -> http.headers(h -> h.set("X-Trace", "first")))
                .httpClient(http -> http.headers(h -> h.add("X-Trace", "second")))
                .build();

        StepVerifier.create(client.resource(V1Pod.class).inNamespace("shop").get("web-0")
                        .map(pod -> Thread.currentThread().getName()))
                .assertNext(thread -> assertThat(thread).startsWith("app-loop"))
                .expectComplete()
                .verify(WAIT);

        assertThat(server.last().headers().getAll("X-Trace")).containsExactly("first", "second");
        client.close();
        assertThat(pool.isDisposed()).as("the application's pool outlives the client").isFalse();
    }
}
