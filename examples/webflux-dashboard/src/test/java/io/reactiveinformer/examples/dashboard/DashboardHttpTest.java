package io.reactiveinformer.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * {@code /pods} and {@code /events} over HTTP on the simulated API server; the SSE heartbeats run on
 * the starter's virtual-time scheduler, so the test advances time instead of waiting for it.
 */
@SpringBootTest(classes = DashboardApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"reactive-informer.simulated.enabled=true", "reactive-informer.simulated.virtual-time=true",
                "reactive-informer.sse.heartbeat=10s", "reactive-informer.sse.idle-timeout=60s"})
@AutoConfigureWebTestClient
class DashboardHttpTest {

    private static final Duration T = Duration.ofSeconds(10);

    @Autowired
    WebTestClient web;
    @Autowired
    SharedIndexInformer<V1Pod> pods;
    @Autowired
    SimulatedApiServer server;
    @Autowired
    KubernetesClient client;
    @Autowired
    VirtualTimeScheduler time;

    @BeforeEach
    void synced() {
        StepVerifier.create(pods.hasSynced()).expectComplete().verify(T);
    }

    @Test
    void podsAreTheCacheInTheApiServersJson() {
        String body = web.get().uri("/pods").exchange()
                .expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult().getResponseBody();

        assertThat(body).doesNotContain("null", "\"number\"", "managedFields")
                .contains("\"readinessProbe\":{\"httpGet\":{\"path\":\"/ready\",\"port\":8080}}",
                        "\"cpu\":\"500m\"", "\"memory\":\"256Mi\"");
        web.get().uri("/pods").exchange().expectBody()
                .jsonPath("$.length()").isEqualTo(pods.indexer().size())
                .jsonPath("$[0].metadata.namespace").isEqualTo("payments")
                .jsonPath("$[0].metadata.name").isEqualTo("payments-0");
    }

    @Test
    void eventsAreTheInitialPodsThenTheSyncMarkerThenHeartbeatsAndChanges() {
        int cached = pods.indexer().size();
        List<ServerSentEvent<String>> initial = new ArrayList<>();
        StepVerifier.create(web.get().uri("/events").accept(MediaType.TEXT_EVENT_STREAM).exchange()
                        .expectStatus().isOk()
                        .returnResult(new ParameterizedTypeReference<ServerSentEvent<String>>() {
                        })
                        .getResponseBody())
                .recordWith(() -> initial)
                .expectNextCount(cached)
                .consumeRecordedWith(added -> assertThat(added).allSatisfy(e -> {
                    assertThat(e.event()).isEqualTo("added");
                    assertThat(e.id()).isNotBlank();
                    assertThat(e.data()).startsWith("{\"type\":\"ADDED\",\"key\":\"");
                }))
                .assertNext(synced -> {
                    assertThat(synced.event()).isEqualTo("synced");
                    assertThat(synced.data()).isEqualTo("{\"type\":\"SYNCED\",\"key\":\"\"}");
                })
                .then(() -> time.advanceTimeBy(Duration.ofSeconds(10)))
                .assertNext(heartbeat -> assertThat(heartbeat.comment()).isEqualTo("heartbeat"))
                .then(() -> client.resource(V1Pod.class).inNamespace("shop")
                        .patchStatus("shop-0", PatchType.MERGE, "{\"status\":{\"phase\":\"Failed\"}}").block(T))
                .assertNext(updated -> {
                    assertThat(updated.event()).isEqualTo("updated");
                    assertThat(updated.data()).startsWith("{\"type\":\"UPDATED\",\"key\":\"shop/shop-0\"")
                            .contains("\"phase\":\"Failed\"", "\"oldObject\":")
                            .endsWith("\"flags\":{\"resync\":false}}");
                    assertThat(updated.id()).isEqualTo(
                            server.state().list(V1Pod.class).stream().filter(p -> p.getMetadata().getName().equals("shop-0"))
                                    .findFirst().orElseThrow().getMetadata().getResourceVersion());
                })
                .thenCancel()
                .verify(T);
    }

    @Test
    void aClientThatResumesGetsOnlyNewerPodsAndTheKeysToPrune() {
        String before = String.valueOf(server.state().resourceVersion());
        // a scheduled pod is deleted gracefully (it stays, marked, until its kubelet confirms): delete it now
        client.resource(V1Pod.class).inNamespace("search").delete("search-0", DeleteOptions.none().withGracePeriod(Duration.ZERO))
                .block(T);
        client.resource(V1Pod.class).inNamespace("shop")
                .patchStatus("shop-1", PatchType.MERGE, "{\"status\":{\"phase\":\"Succeeded\"}}").block(T);
        StepVerifier.create(Convergence.until(() -> pods.lister().namespace("search").get("search-0").isEmpty()
                        && "Succeeded".equals(pods.lister().namespace("shop").get("shop-1").orElseThrow()
                        .getStatus().getPhase()), T, Schedulers.parallel()))
                .expectComplete().verify(T);

        StepVerifier.create(web.get().uri("/events").header("Last-Event-ID", before).exchange()
                        .returnResult(new ParameterizedTypeReference<ServerSentEvent<String>>() {
                        })
                        .getResponseBody())
                .assertNext(changed -> assertThat(changed.data()).startsWith("{\"type\":\"ADDED\",\"key\":\"shop/shop-1\""))
                .assertNext(synced -> {
                    assertThat(synced.event()).isEqualTo("synced");
                    assertThat(synced.data()).contains("\"keys\":[").contains("\"shop/shop-1\"")
                            .doesNotContain("\"search/search-0\"");
                })
                .thenCancel()
                .verify(T);
    }
}
