package io.reactiveinformer.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.Convergence;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.test.StepVerifier;

/**
 * 100 SSE clients that abort right after the first bytes: the informer's subscriber count returns to
 * its baseline, at the latest once the idle guard (heartbeat 500 ms, idle timeout 5 s here) gave up on them.
 */
@SpringBootTest(classes = DashboardApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"reactive-informer.simulated.enabled=true", "reactive-informer.sse.heartbeat=500ms",
                "reactive-informer.sse.idle-timeout=5s"})
class SseLeakTest {

    private static final int CLIENTS = 100;
    private static final Duration IDLE_GUARD = Duration.ofSeconds(5);

    @LocalServerPort
    int port;
    @Autowired
    SharedIndexInformer<V1Pod> pods;

    @Test
    void abortedStreamsLeaveNoSubscriberBehind() {
        pods.hasSynced().block(Duration.ofSeconds(30));
        int baseline = pods.handlerCount();
        ConnectionProvider connections = ConnectionProvider.create("leak-test", CLIENTS);
        HttpClient http = HttpClient.create(connections).baseUrl("http://127.0.0.1:" + port);
        int[] peak = {0};
        try {
            Long received = Flux.range(0, CLIENTS)
                    .flatMap(i -> http.get().uri("/events").responseContent().take(1)  // first bytes, then abort
                            .doOnNext(bytes -> peak[0] = Math.max(peak[0], pods.handlerCount())), CLIENTS)
                    .count()
                    .block(Duration.ofSeconds(60));
            assertThat(received).isEqualTo(CLIENTS);
        } finally {
            connections.dispose();
        }
        long aborted = System.nanoTime();

        // the property is "no subscriber left behind": the guard's own 5 s plus slack for a loaded machine, whose
        // threads wait for a core (the time it took is printed: 19-263 ms on an idle one)
        StepVerifier.create(Convergence.until(() -> pods.handlerCount() == baseline, IDLE_GUARD.plusSeconds(25),
                        Schedulers.parallel()))
                .expectComplete()
                .verify(Duration.ofSeconds(40));
        long millis = (System.nanoTime() - aborted) / 1_000_000;
        System.out.println("leak test: baseline " + baseline + " subscribers, peak " + peak[0] + " while " + CLIENTS
                + " clients read, back to " + pods.handlerCount() + " " + millis + " ms after the last abort");
        assertThat(peak[0]).isGreaterThan(baseline);
    }
}
