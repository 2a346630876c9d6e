package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import io.reactiveinformer.test.Convergence;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.test.StepVerifier;

/**
 * A watcher that stops reading: once its connection is full the server stops feeding it, and when
 * the history moves past it the stream ends with a 410 ERROR event instead of buffering.
 */
class SlowWatcherHttpTest {

    @Test
    void watcherThatStopsReadingIsClosedWith410() {
        ClusterState state = ClusterState.builder().historyLimit(100).build();
        String big = "x".repeat(32 * 1024);
        try (SimulatedApiServer server = SimulatedApiServer.start(state)) {
            Sinks.One<Boolean> resume = Sinks.one();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            var stream = HttpClient.create(ConnectionProvider.newConnection()).baseUrl(server.url().toString())
                    .get().uri("/api/v1/namespaces/shop/configmaps?watch=true&resourceVersion=1")
                    .response((res, body) -> body.asByteArray()
                            // read one buffer, then nothing until told: the socket fills up
                            .limitRate(1)
                            .delayUntil(bytes -> received.size() == 0 ? resume.asMono() : Mono.empty())
                            .doOnNext(received::writeBytes))
                    .then();
            Mono<Void> churn = Convergence.until(() -> state.watcherCount() == 1, Duration.ofSeconds(10),
                    Schedulers.parallel()).then(Mono.fromRunnable(() -> {
                        for (int i = 0; i < 1000; i++) {
                            state.create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("shop").name("m" + i))
                                    .data(Map.of("payload", big)));
                        }
                        assertThat(state.watcherCount()).isZero();
                        resume.tryEmitValue(true);
                    }));
            StepVerifier.create(Mono.when(stream, churn))
                    .expectComplete()
                    .verify(Duration.ofSeconds(30));
            String text = received.toString(StandardCharsets.UTF_8);
            String[] lines = text.split("\n");
            assertThat(lines.length).isLessThan(1000);
            assertThat(lines[lines.length - 1]).startsWith("{\"type\":\"ERROR\"").contains("\"code\":410");
        }
    }
}
