package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Status;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.codec.KubernetesJson;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.Credentials;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ResourceClientTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final KubernetesJson JSON = KubernetesJson.defaults();
    // read here: the server's handlers run on event loops, where BlockHound forbids file reads
    private static final byte[] POD = Fixtures.bytes("pod.json");
    private static final byte[] PAGE1 = Fixtures.bytes("pod-list-page1.json");
    private static final byte[] PAGE2 = Fixtures.bytes("pod-list-page2.json");
    private static final byte[] STREAM = Fixtures.bytes("watch-stream.jsonl");
    private static final byte[] ERROR_STREAM = Fixtures.bytes("watch-error-410.jsonl");

    private final FakeApiServer server = new FakeApiServer();
    private KubernetesClient client = client(ClientConfig.forServer(URI.create(server.url())).withNamespace("shop"));

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    private static KubernetesClient client(ClientConfig config) {
        return KubernetesClient.create(config);
    }

    @Test
    void listsAllPagesFollowingContinueTokens() {
        server.handle((req, res) -> res.header("Content-Type", "application/json").sendByteArray(Mono.just(
                req.uri().contains("continue=") ? PAGE2 : PAGE1)));

        StepVerifier.create(client.resource(V1Pod.class).listAll(3).map(p -> p.getMetadata().getName()))
                .expectNext("web-7d4b9c8f6d-00000", "web-7d4b9c8f6d-00001", "web-7d4b9c8f6d-00002",
                        "web-7d4b9c8f6d-00003", "web-7d4b9c8f6d-00004")
                .expectComplete()
                .verify(WAIT);

        assertThat(server.requests()).extracting(FakeApiServer.Seen::uri).containsExactly(
                "/api/v1/namespaces/shop/pods?limit=3",
                "/api/v1/namespaces/shop/pods?limit=3&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTg0NTAwLCJzdGFydCI6InNob3Avd2ViLTdkNGI5YzhmNmQtMDAwMDJcdTAwMDAifQ");
    }

    @Test
    void listSendsSelectorsAndResourceVersion() {
        server.handle((req, res) -> res.sendByteArray(Mono.just(PAGE2)));

        StepVerifier.create(client.resource(V1Pod.class).inAnyNamespace().withLabelSelector("app=web")
                        .list(ListOptions.none().withSelectors("tier!=db", "status.phase=Running")
                                .withResourceVersion("184400", "NotOlderThan").withLimit(500)))
                .assertNext(page -> {
                    assertThat(page.items()).hasSize(2);
                    assertThat(page.resourceVersion()).isEqualTo("184500");
                    assertThat(page.hasMore()).isFalse();
                })
                .verifyComplete();

        assertThat(server.last().uri()).isEqualTo("/api/v1/pods?labelSelector=app%3Dweb%2Ctier%21%3Ddb"
                + "&fieldSelector=status.phase%3DRunning&limit=500&resourceVersion=184400&resourceVersionMatch=NotOlderThan");
    }

    @Test
    void watchDecodesEventsAcrossChunksAndCompletesWhenTheServerCloses() {
        byte[] stream = STREAM;
        List<byte[]> chunks = new ArrayList<>();
        for (int from = 0; from < stream.length; from += 1237) {
            chunks.add(Arrays.copyOfRange(stream, from, Math.min(stream.length, from + 1237)));
        }
        server.handle((req, res) -> res.sendByteArray(Flux.fromIterable(chunks)));

        StepVerifier.create(client.resource(V1Pod.class).watch(WatchOptions.from("184500").withTimeoutSeconds(300)))
                .expectNextMatches(e -> e.type() == WatchEvent.Type.ADDED)
                .expectNextMatches(e -> e.type() == WatchEvent.Type.MODIFIED)
                .expectNextMatches(e -> e.type() == WatchEvent.Type.BOOKMARK
                        && "184502".equals(e.object().getMetadata().getResourceVersion()))
                .expectNextMatches(e -> e.type() == WatchEvent.Type.DELETED)
                .expectComplete()
                .verify(WAIT);

        assertThat(server.last().uri()).isEqualTo(
                "/api/v1/namespaces/shop/pods?watch=true&resourceVersion=184500&allowWatchBookmarks=true&timeoutSeconds=300");
    }

    @Test
    void watchErrorEventFailsWithGone() {
        server.handle((req, res) -> res.sendByteArray(Mono.just(ERROR_STREAM)));

        StepVerifier.create(client.resource(V1Pod.class).watch(WatchOptions.from("184400")))
                .expectNextCount(1)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(KubernetesApiException.Gone.class)
                        .hasMessageContaining("too old resource version"))
                .verify(WAIT);
    }

    @Test
    void statusAnswersBecomeTypedErrors() {
        server.handle((req, res) -> {
            if (req.uri().contains("limit=1")) {
                return status(res, 410, "Expired", "The provided continue parameter is too old");
            }
            if (req.uri().contains("limit=2")) {
                return status(res.header("Retry-After", "7"), 429, "TooManyRequests", "slow down");
            }
            if (req.uri().contains("limit=3")) {
                return status(res, 403, "Forbidden", "pods is forbidden: User \"system:serviceaccount:shop:web\" cannot list");
            }
            return res.status(503).header("Retry-After", "2").sendString(Mono.just("<html>bad gateway</html>"));
        });
        var pods = client.resource(V1Pod.class);

        StepVerifier.create(pods.list(ListOptions.none().withLimit(1)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(KubernetesApiException.Gone.class)
                        .hasMessageContaining("GET /api/v1/namespaces/shop/pods?limit=1: 410 Expired"))
                .verify(WAIT);
        StepVerifier.create(pods.list(ListOptions.none().withLimit(2)))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(KubernetesApiException.TooManyRequests.class);
                    assertThat(((KubernetesApiException) e).retryAfter()).contains(Duration.ofSeconds(7));
                    assertThat(((KubernetesClientException) e).isRetriable()).isTrue();
                })
                .verify(WAIT);
        StepVerifier.create(pods.list(ListOptions.none().withLimit(3)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(KubernetesApiException.Forbidden.class)
                        .hasMessageContaining("cannot list"))
                .verify(WAIT);
        StepVerifier.create(pods.list(ListOptions.none().withLimit(4)))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(KubernetesApiException.ServerError.class);
                    assertThat(((KubernetesApiException) e).status()).isEmpty();
                    assertThat(((KubernetesApiException) e).retryAfter()).contains(Duration.ofSeconds(2));
                })
                .verify(WAIT);
    }

    @Test
    void bodyCutMidObjectIsAnErrorNeverACompletion() {
        byte[] stream = STREAM;
        server.handle((req, res) -> res.sendByteArray(Flux.just(Arrays.copyOf(stream, 6000))
                .concatWith(Mono.error(new IOException("connection cut")))));

        StepVerifier.create(client.resource(V1Pod.class).watch(WatchOptions.from("1")))
                .expectNextCount(1)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfAny(TransportException.class, DecodeException.class)
                        .hasMessageContaining("GET /api/v1/namespaces/shop/pods?watch=true"))
                .verify(WAIT);
    }

    @Test
    void invalidJsonInAWatchNamesThePosition() {
        server.handle((req, res) -> res.sendString(Mono.just("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n{\"type\":\"ADDED\",\"object\":{]}\n")));

        StepVerifier.create(client.resource(V1Pod.class).watch(WatchOptions.from("1")))
                .expectNextCount(1)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(DecodeException.class)
                        .hasMessageContaining("line 2, column"))
                .verify(WAIT);
    }

    @Test
    void cancellingAWatchClosesTheConnection() {
        Sinks.One<Boolean> closed = Sinks.one();
        server.handle((req, res) -> {
            res.withConnection(c -> c.onDispose(() -> closed.tryEmitValue(true)));
            byte[] line = ERROR_STREAM;
            int end = new String(line, StandardCharsets.UTF_8).indexOf('\n') + 1;
            return res.sendByteArray(Flux.just(Arrays.copyOf(line, end)).concatWith(Flux.never()));
        });

        StepVerifier.create(client.resource(V1Pod.class).watch(WatchOptions.from("1")).take(1))
                .expectNextCount(1)
                .verifyComplete();
        StepVerifier.create(closed.asMono()).expectNext(true).expectComplete().verify(WAIT);
    }

    @Test
    void aWatchTheServerNeverEndsFailsAfterItsTimeoutPlusGrace() {
        VirtualTimeScheduler clock = VirtualTimeScheduler.create();
        client.close();
        client = client(ClientConfig.forServer(URI.create(server.url())).withNamespace("shop").withScheduler(clock));
        byte[] line = ERROR_STREAM;
        int end = new String(line, StandardCharsets.UTF_8).indexOf('\n') + 1;
        server.handle((req, res) -> res.sendByteArray(Flux.just(Arrays.copyOf(line, end)).concatWith(Flux.never())));

        StepVerifier.create(client.resource(V1Pod.class).watch(WatchOptions.from("1").withTimeoutSeconds(60)))
                .expectNextCount(1)
                .then(() -> clock.advanceTimeBy(Duration.ofSeconds(89)))
                .expectNoEvent(Duration.ofMillis(50))
                .then(() -> clock.advanceTimeBy(Duration.ofSeconds(1)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(TransportException.class)
                        .hasMessageContaining("did not end the watch"))
                .verify(WAIT);
    }

    @Test
    void crudAndPatchesUseTheRightMethodsPathsAndContentTypes() {
        byte[] pod = POD;
        server.handle((req, res) -> req.method().name().equals("DELETE")
                ? status(res.status(200), 200, null, null)
                : res.header("Content-Type", "application/json").sendByteArray(Mono.just(pod)));
        var pods = client.resource(V1Pod.class);
        V1Pod object = new V1Pod().metadata(new V1ObjectMeta().name("web-1").namespace("other"));

        StepVerifier.create(pods.get("web-1")).expectNextMatches(p -> p.getSpec() != null).verifyComplete();
        assertThat(server.last().method() + " " + server.last().uri()).isEqualTo("GET /api/v1/namespaces/shop/pods/web-1");

        StepVerifier.create(pods.create(object)).expectNextCount(1).verifyComplete();
        assertThat(server.last().method() + " " + server.last().uri()).isEqualTo("POST /api/v1/namespaces/other/pods");
        assertThat(server.last().body()).isEqualTo("{\"metadata\":{\"name\":\"web-1\",\"namespace\":\"other\"}}");

        StepVerifier.create(pods.replace(object)).expectNextCount(1).verifyComplete();
        assertThat(server.last().method() + " " + server.last().uri()).isEqualTo("PUT /api/v1/namespaces/other/pods/web-1");

        StepVerifier.create(pods.replaceStatus(object)).expectNextCount(1).verifyComplete();
        assertThat(server.last().uri()).isEqualTo("/api/v1/namespaces/other/pods/web-1/status");

        StepVerifier.create(pods.patch("web-1", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}"))
                .expectNextCount(1).verifyComplete();
        assertThat(server.last().headers().get("Content-Type")).isEqualTo("application/merge-patch+json");
        assertThat(server.last().method()).isEqualTo("PATCH");

        StepVerifier.create(pods.patch("web-1", PatchType.STRATEGIC_MERGE, "{}")).expectNextCount(1).verifyComplete();
        assertThat(server.last().headers().get("Content-Type")).isEqualTo("application/strategic-merge-patch+json");

        StepVerifier.create(pods.patchStatus("web-1", PatchType.JSON_PATCH, "[{\"op\":\"remove\",\"path\":\"/status/x\"}]"))
                .expectNextCount(1).verifyComplete();
        assertThat(server.last().uri()).isEqualTo("/api/v1/namespaces/shop/pods/web-1/status");
        assertThat(server.last().headers().get("Content-Type")).isEqualTo("application/json-patch+json");

        StepVerifier.create(pods.apply(object, "my-controller", true)).expectNextCount(1).verifyComplete();
        assertThat(server.last().uri()).isEqualTo("/api/v1/namespaces/other/pods/web-1?fieldManager=my-controller&force=true");
        assertThat(server.last().headers().get("Content-Type")).isEqualTo("application/apply-patch+yaml");

        StepVerifier.create(pods.delete("web-1")).verifyComplete();
        assertThat(server.last().method() + " " + server.last().uri()).isEqualTo("DELETE /api/v1/namespaces/shop/pods/web-1");
    }

    @Test
    void dynamicResourcesAndClusterScopedPaths() {
        server.handle((req, res) -> res.sendString(Mono.just(
                "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},\"spec\":{\"size\":2}}")));
        ResourceClient<DynamicObject> widgets = client.resource(
                ResourceType.dynamic("example.com", "v1", "widgets", "Widget", false));

        StepVerifier.create(widgets.get("w"))
                .expectNextMatches(w -> w.get("spec").get("size").asInt() == 2)
                .verifyComplete();
        assertThat(server.last().uri()).isEqualTo("/apis/example.com/v1/widgets/w");
    }

    @Test
    void bearerTokenIsSentAndForgottenAfterA401() {
        List<String> tokens = new ArrayList<>(List.of("first", "second"));
        Credentials rotating = new Credentials() {
            private String current;

            @Override
            public Mono<String> bearerToken() {
                return Mono.fromSupplier(() -> current == null ? current = tokens.remove(0) : current);
            }

            @Override
            public void invalidate(String token) {
                if (token.equals(current)) {
                    current = null;
                }
            }
        };
        client.close();
        client = client(ClientConfig.forServer(URI.create(server.url())).withNamespace("shop").withCredentials(rotating));
        server.handle((req, res) -> "Bearer first".equals(req.requestHeaders().get("Authorization"))
                ? status(res, 401, "Unauthorized", "Unauthorized")
                : res.sendByteArray(Mono.just(POD)));
        var pods = client.resource(V1Pod.class);

        StepVerifier.create(pods.get("a"))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(KubernetesApiException.Unauthorized.class)
                        .message().doesNotContain("first"))
                .verify(WAIT);
        StepVerifier.create(pods.get("a")).expectNextCount(1).verifyComplete();
        assertThat(server.requests()).extracting(s -> s.headers().get("Authorization"))
                .containsExactly("Bearer first", "Bearer second");
    }

    @Test
    void connectionRefusedIsATransportError() {
        server.close();
        StepVerifier.create(client.resource(V1Pod.class).get("a"))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(TransportException.class)
                        .hasMessageContaining("GET /api/v1/namespaces/shop/pods/a"))
                .verify(WAIT);
    }

    private static org.reactivestreams.Publisher<Void> status(reactor.netty.http.server.HttpServerResponse res, int code,
                                                              String reason, String message) {
        V1Status status = new V1Status().kind("Status").apiVersion("v1").status(code < 300 ? "Success" : "Failure")
                .code(code).reason(reason).message(message);
        return res.status(HttpResponseStatus.valueOf(code)).header("Content-Type", "application/json")
                .sendByteArray(Mono.just(JSON.encode(status)));
    }
}
