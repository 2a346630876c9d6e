package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.Encoding;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.PrematureCloseException;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Every fault of the plan: typed errors through the client, byte-level ones through raw HTTP. */
class FaultInjectionTest {

    private static final Duration T = Duration.ofSeconds(10);
    private static final String WATCH = "/api/v1/namespaces/shop/configmaps?watch=true&resourceVersion=1";

    private SimulatedApiServer server;
    private KubernetesClient client;

    private ResourceClient<V1ConfigMap> start(ClusterState state) {
        server = SimulatedApiServer.start(state);
        client = server.newClient();
        for (int i = 0; i < 3; i++) {
            state.create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("shop").name("m" + i))
                    .data(Map.of("k", "v" + i)));
        }
        return client.resource(V1ConfigMap.class).inNamespace("shop");
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void statusFaultsBecomeTypedErrors() {
        ResourceClient<V1ConfigMap> maps = start(ClusterState.create());
        server.faults()
                .once(RequestInfo.reads(), Fault.tooManyRequests(Duration.ofSeconds(7)))
                .once(RequestInfo.reads(), Fault.internalError())
                .once(RequestInfo.reads(), Fault.forbidden())
                .once(RequestInfo.reads(), Fault.unauthorized());
        StepVerifier.create(maps.list(ListOptions.none()))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(KubernetesApiException.TooManyRequests.class);
                    assertThat(((KubernetesApiException) e).retryAfter()).contains(Duration.ofSeconds(7));
                    assertThat(((KubernetesApiException) e).status().orElseThrow().getReason()).isEqualTo("TooManyRequests");
                })
                .verify(T);
        StepVerifier.create(maps.list(ListOptions.none())).expectError(KubernetesApiException.ServerError.class).verify(T);
        StepVerifier.create(maps.list(ListOptions.none())).expectError(KubernetesApiException.Forbidden.class).verify(T);
        StepVerifier.create(maps.list(ListOptions.none())).expectError(KubernetesApiException.Unauthorized.class).verify(T);
        assertThat(maps.list(ListOptions.none()).block(T).items()).hasSize(3);
    }

    @Test
    void expiredWatchSendsA410ErrorEvent() {
        ResourceClient<V1ConfigMap> maps = start(ClusterState.create());
        server.faults().once(RequestInfo.watches(), Fault.expiredWatch());
        StepVerifier.create(maps.watch(WatchOptions.from("4")))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(KubernetesApiException.Gone.class);
                    assertThat(((KubernetesApiException) e).reason()).isEqualTo("Expired");
                })
                .verify(T);
        server.faults().once(RequestInfo.watches(), Fault.expiredWatch());
        RawHttp.Result raw = RawHttp.get(server, WATCH).block(T);
        assertThat(raw.status()).isEqualTo(200);
        assertThat(raw.text()).startsWith("{\"type\":\"ERROR\",\"object\":{\"apiVersion\":\"v1\",\"code\":410,")
                .endsWith("\"reason\":\"Expired\",\"status\":\"Failure\"}}\n");
        assertThat(raw.error()).isNull();
    }

    @Test
    void aReadClosedWithoutAResponseIsSentOnceMore() {
        ResourceClient<V1ConfigMap> maps = start(ClusterState.create());
        server.faults().once(RequestInfo.reads(), Fault.closeWithoutResponse());
        StepVerifier.create(RawHttp.get(server, "/api/v1/namespaces/shop/configmaps"))
                .expectError(PrematureCloseException.class)
                .verify(T);

        server.faults().once(RequestInfo.reads(), Fault.closeWithoutResponse());
        int before = server.requests().size();
        assertThat(maps.list(ListOptions.none()).block(T).items()).hasSize(3);
        assertThat(server.requests().size() - before).as("the closed LIST and the one sent again").isEqualTo(2);

        server.faults().once(RequestInfo.watches(), Fault.closeWithoutResponse());
        StepVerifier.create(maps.watch(WatchOptions.from("1")).take(3))
                .expectNextCount(3)
                .verifyComplete();

        server.faults().times(2, RequestInfo.reads(), Fault.closeWithoutResponse());
        before = server.requests().size();
        StepVerifier.create(maps.list(ListOptions.none()))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(TransportException.class)
                        .hasCauseInstanceOf(PrematureCloseException.class))
                .verify(T);
        assertThat(server.requests().size() - before).as("sent again once, not more").isEqualTo(2);
    }

    @Test
    void aWriteClosedWithoutAResponseIsNotSentAgain() {
        ResourceClient<V1ConfigMap> maps = start(ClusterState.create());
        server.faults().once(RequestInfo.method("POST"), Fault.closeWithoutResponse());
        StepVerifier.create(maps.create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("shop").name("m3"))))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(TransportException.class)
                        .hasCauseInstanceOf(PrematureCloseException.class))
                .verify(T);
        assertThat(server.requests()).filteredOn(r -> r.method().equals("POST")).hasSize(1);
        assertThat(maps.list(ListOptions.none()).block(T).items()).hasSize(3);
    }

    @Test
    void connectionClosedMidJsonObject() {
        // the cut is counted in the JSON's bytes (protobuf frames are cut in ProtobufServingTest)
        ResourceClient<V1ConfigMap> maps = start(ClusterState.create()).withEncoding(Encoding.JSON);
        RawHttp.Result whole = RawHttp.get(server, WATCH + "&timeoutSeconds=1").block(T);
        String firstLine = whole.text().substring(0, whole.text().indexOf('\n') + 1);
        server.faults().once(RequestInfo.watches(), Fault.closeAfterBytes(firstLine.length() + 10));
        RawHttp.Result cut = RawHttp.get(server, WATCH).block(T);
        assertThat(cut.text()).isEqualTo(whole.text().substring(0, firstLine.length() + 10));
        assertThat(cut.error()).isInstanceOf(PrematureCloseException.class);
        server.faults().once(RequestInfo.watches(), Fault.closeAfterBytes(firstLine.length() + 10));
        StepVerifier.create(maps.watch(WatchOptions.from("1")))
                .expectNextCount(1)
                .expectError(TransportException.class)
                .verify(T);
    }

    @Test
    void listCutShortFailsTheList() {
        ResourceClient<V1ConfigMap> maps = start(ClusterState.create());
        server.faults().once(RequestInfo.reads(), Fault.closeAfterBytes(40));
        RawHttp.Result cut = RawHttp.get(server, "/api/v1/namespaces/shop/configmaps").block(T);
        assertThat(cut.body()).hasSize(40);
        assertThat(cut.error()).isInstanceOf(PrematureCloseException.class);
        server.faults().once(RequestInfo.reads(), Fault.closeAfterBytes(40));
        StepVerifier.create(maps.list(ListOptions.none())).expectError(TransportException.class).verify(T);
    }

    @Test
    void connectionClosedAfterWholeEventsWithoutTheFinalChunk() {
        ResourceClient<V1ConfigMap> maps = start(ClusterState.create());
        server.faults().once(RequestInfo.watches(), Fault.closeAfterEvents(2));
        RawHttp.Result cut = RawHttp.get(server, WATCH).block(T);
        assertThat(cut.text().split("\n")).hasSize(2);
        assertThat(cut.error()).isInstanceOf(PrematureCloseException.class);
        server.faults().once(RequestInfo.watches(), Fault.closeAfterEvents(2));
        StepVerifier.create(maps.watch(WatchOptions.from("1"))).expectNextCount(2).expectError(TransportException.class)
                .verify(T);
    }

    @Test
    void garbageBytesAreSentVerbatimAndFailDecoding() {
        ResourceClient<V1ConfigMap> maps = start(ClusterState.create());
        Fault garbage = Fault.garbage(1, 16, 7);
        server.faults().once(RequestInfo.watches(), garbage);
        RawHttp.Result raw = RawHttp.get(server, WATCH + "&timeoutSeconds=1").block(T);
        byte[] expected = ((Fault.Insert) garbage).bytes();
        int firstLine = raw.text().indexOf('\n') + 1;
        byte[] inserted = java.util.Arrays.copyOfRange(raw.body(), firstLine, firstLine + expected.length);
        assertThat(inserted).isEqualTo(expected);
        server.faults().once(RequestInfo.watches(), garbage);
        StepVerifier.create(maps.watch(WatchOptions.from("1"))).expectNextCount(1).expectError(DecodeException.class)
                .verify(T);
    }

    @Test
    void unknownEventTypesAndObjectsWithoutMetadataAreSent() {
        start(ClusterState.create());
        server.faults().once(RequestInfo.watches(), Fault.unknownEventType(0))
                .once(RequestInfo.watches(), Fault.objectWithoutMetadata(3));
        String unknown = RawHttp.get(server, WATCH + "&timeoutSeconds=1").block(T).text();
        assertThat(unknown.split("\n")[0]).isEqualTo("{\"type\":\"SURPRISE\",\"object\":{}}");
        String noMeta = RawHttp.get(server, WATCH + "&timeoutSeconds=1").block(T).text();
        assertThat(noMeta.split("\n")).hasSize(4);
        assertThat(noMeta.split("\n")[3]).isEqualTo("{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}}");
    }

    @Test
    void silentWatchSendsHeadersThenNothing() {
        ResourceClient<V1ConfigMap> maps = start(ClusterState.create());
        server.faults().once(RequestInfo.watches(), Fault.silentWatch());
        // the server ignores timeoutSeconds=1: the client's own deadline (1 s + grace) would have to end it
        StepVerifier.create(maps.watch(WatchOptions.from("1").withTimeoutSeconds(1)))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(1500))
                .thenCancel()
                .verify(T);
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void delayRunsOnTheStateScheduler() {
        VirtualTimeScheduler clock = VirtualTimeScheduler.create();
        start(ClusterState.builder().scheduler(clock).build());
        // the client keeps real time: only the server's delay is virtual
        try (KubernetesClient realTime = KubernetesClient.create(server.clientConfig().withScheduler(Schedulers.parallel()))) {
            ResourceClient<V1ConfigMap> maps = realTime.resource(V1ConfigMap.class).inNamespace("shop");
            server.faults().once(RequestInfo.reads(), Fault.delay(Duration.ofMinutes(5)));
            StepVerifier.create(maps.list(ListOptions.none()))
                    .expectSubscription()
                    .expectNoEvent(Duration.ofMillis(300))
                    // keep moving the server's clock until the delayed answer arrives
                    .then(() -> Flux.interval(Duration.ofMillis(20)).take(250)
                            .subscribe(t -> clock.advanceTimeBy(Duration.ofMinutes(1))))
                    .assertNext(list -> assertThat(list.items()).hasSize(3))
                    .verifyComplete();
            assertThat(clock.now(TimeUnit.MINUTES)).isGreaterThanOrEqualTo(5);
        }
    }

    @Test
    void seededRandomFaultsRepeat() {
        start(ClusterState.create());
        List<Fault> choices = List.of(Fault.internalError(), Fault.forbidden(), Fault.tooManyRequests(Duration.ofSeconds(1)));
        assertThat(draws(42, choices)).isEqualTo(draws(42, choices)).isNotEqualTo(draws(43, choices));
        server.faults().random(1, 1.0, RequestInfo.any(), List.of(Fault.forbidden()));
        assertThat(RawHttp.get(server, "/api/v1/namespaces/shop/configmaps").block(T).status()).isEqualTo(403);
        server.faults().clear();
        assertThat(RawHttp.get(server, "/api/v1/namespaces/shop/configmaps").block(T).status()).isEqualTo(200);
    }

    private static List<Fault> draws(long seed, List<Fault> choices) {
        FaultPlan plan = new FaultPlan().random(seed, 0.5, RequestInfo.any(), choices);
        List<Fault> out = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            out.add(plan.next(new RequestInfo("GET", "/api/v1/pods", Map.of())));
        }
        return out;
    }

    @Test
    void errorBodiesAreStatusObjects() {
        start(ClusterState.create());
        server.faults().once(RequestInfo.reads(), Fault.tooManyRequests(Duration.ofSeconds(3)));
        RawHttp.Result throttled = RawHttp.get(server, "/api/v1/namespaces/shop/configmaps").block(T);
        assertThat(throttled.status()).isEqualTo(429);
        assertThat(throttled.text()).isEqualTo("{\"apiVersion\":\"v1\",\"code\":429,\"kind\":\"Status\",\"message\":"
                + "\"Too many requests, please try again later.\",\"metadata\":{},\"reason\":\"TooManyRequests\","
                + "\"status\":\"Failure\"}");
        RawHttp.Result missing = RawHttp.get(server, "/api/v1/namespaces/shop/configmaps/nope").block(T);
        assertThat(new String(missing.body(), StandardCharsets.UTF_8)).contains("\"details\":{\"kind\":\"configmaps\","
                + "\"name\":\"nope\"}");
    }
}
