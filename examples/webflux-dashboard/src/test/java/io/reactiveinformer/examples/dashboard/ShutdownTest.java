package io.reactiveinformer.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;
import reactor.test.StepVerifier;

/**
 * Closing the application with open SSE streams: the informers stop before the web server's graceful
 * shutdown, so the streams complete and the close does not wait for the graceful-shutdown timeout.
 */
class ShutdownTest {

    private static final int STREAMS = 5;

    @Test
    void contextCloseWithOpenStreamsCompletesInUnderTwoSeconds() {
        SpringApplication app = new SpringApplication(DashboardApplication.class);
        app.setDefaultProperties(Map.of("reactive-informer.simulated.enabled", "true", "server.port", "0",
                "server.shutdown", "graceful", "spring.lifecycle.timeout-per-shutdown-phase", "30s"));
        ConfigurableApplicationContext context = app.run();
        int port = context.getBean(Environment.class).getRequiredProperty("local.server.port", Integer.class);
        // the client's own connections and event loop: on close the context disposes Reactor Netty's global
        // ones (ReactorResourceFactory.stop), which would cut a client sharing them in the middle of reading
        // the streams' last chunk, although the server had sent it ("prematurely closed DURING response")
        LoopResources clientLoop = LoopResources.create("shutdown-test-client", 1, true);
        try {
            HttpClient http = HttpClient.create(ConnectionProvider.newConnection()).runOn(clientLoop)
                    .baseUrl("http://127.0.0.1:" + port);

            // each stream: its text until the server ends it; subscribed now, read to the end below
            List<Mono<String>> streams = Flux.range(0, STREAMS)
                    .map(i -> http.get().uri("/events").responseContent().asString().reduce(String::concat).cache())
                    .collectList().block();
            streams.forEach(Mono::subscribe);
            StepVerifier.create(io.reactiveinformer.test.Convergence.until(
                            () -> context.getBean(io.reactiveinformer.informer.SharedInformerFactory.class).informers()
                                    .get(0).handlerCount() == STREAMS, Duration.ofSeconds(20),
                            reactor.core.scheduler.Schedulers.parallel()))
                    .expectComplete().verify(Duration.ofSeconds(30));

            Mono<Long> streamsEnded = Flux.merge(streams).then(Mono.fromCallable(System::nanoTime)).cache();
            streamsEnded.subscribe();
            long start = System.nanoTime();
            context.close();
            long millis = (System.nanoTime() - start) / 1_000_000;
            long streamMillis = (streamsEnded.block(Duration.ofSeconds(5)) - start) / 1_000_000;
            System.out.println("shutdown test: context close with " + STREAMS + " open SSE streams took " + millis
                    + " ms; the streams had completed " + streamMillis + " ms after the close began");

            assertThat(millis).isLessThan(2000);
            assertThat(streamMillis).isLessThan(millis);
            StepVerifier.create(Flux.merge(streams)).thenConsumeWhile(text -> text.contains("event:synced"))
                    .expectComplete().verify(Duration.ofSeconds(5));
        } finally {
            // closing twice is a no-op; on a failure above it stops the application before the next test
            context.close();
            clientLoop.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(10));
        }
    }
}
