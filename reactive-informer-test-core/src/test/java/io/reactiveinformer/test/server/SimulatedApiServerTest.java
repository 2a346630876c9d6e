package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** The server's protocol, spoken to by the library's own client. */
class SimulatedApiServerTest {

    private static final Duration T = Duration.ofSeconds(10);

    private SimulatedApiServer server;
    private KubernetesClient client;
    private ResourceClient<V1ConfigMap> maps;

    @BeforeEach
    void start() {
        server = SimulatedApiServer.start(ClusterState.builder().historyLimit(50).build());
        client = server.newClient();
        maps = client.resource(V1ConfigMap.class).inNamespace("shop");
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    static V1ConfigMap map(String ns, String name, Map<String, String> labels) {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace(ns).name(name).labels(labels))
                .data(Map.of("k", name));
    }

    @Test
    void createGetReplaceDeleteWithGlobalVersions() {
        V1ConfigMap created = maps.create(map("shop", "a", null)).block(T);
        assertThat(created.getMetadata().getUid()).isNotBlank();
        assertThat(created.getMetadata().getResourceVersion()).isEqualTo("2");
        assertThat(created.getMetadata().getCreationTimestamp()).isNotNull();
        assertThat(created.getKind()).isEqualTo("ConfigMap");
        // another kind takes the next version: one counter for the whole cluster
        client.resource(V1Namespace.class).create(new V1Namespace().metadata(new V1ObjectMeta().name("shop"))).block(T);
        V1ConfigMap got = maps.get("a").block(T);
        assertThat(got).isEqualTo(created);
        got.setData(Map.of("k", "changed"));
        V1ConfigMap replaced = maps.replace(got).block(T);
        assertThat(replaced.getMetadata().getResourceVersion()).isEqualTo("4");
        assertThat(replaced.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
        maps.delete("a").block(T);
        assertThat(server.state().resourceVersion()).isEqualTo(5);
        StepVerifier.create(maps.get("a"))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(KubernetesApiException.NotFound.class);
                    var status = ((KubernetesApiException) e).status().orElseThrow();
                    assertThat(status.getKind()).isEqualTo("Status");
                    assertThat(status.getApiVersion()).isEqualTo("v1");
                    assertThat(status.getStatus()).isEqualTo("Failure");
                    assertThat(status.getReason()).isEqualTo("NotFound");
                    assertThat(status.getCode()).isEqualTo(404);
                    assertThat(status.getMessage()).isEqualTo("configmaps \"a\" not found");
                    assertThat(status.getDetails().getName()).isEqualTo("a");
                })
                .verify(T);
    }

    @Test
    void staleResourceVersionConflictsAndDuplicatesAlreadyExist() {
        V1ConfigMap created = maps.create(map("shop", "a", null)).block(T);
        maps.patch("a", PatchType.MERGE, "{\"data\":{\"k\":\"v2\"}}").block(T);
        StepVerifier.create(maps.replace(created))
                .expectErrorSatisfies(e -> assertThat(((KubernetesApiException) e).reason()).isEqualTo("Conflict"))
                .verify(T);
        StepVerifier.create(maps.create(map("shop", "a", null)))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(KubernetesApiException.Conflict.class);
                    assertThat(((KubernetesApiException) e).reason()).isEqualTo("AlreadyExists");
                })
                .verify(T);
    }

    @Test
    void patchesOfEveryFormat() {
        maps.create(map("shop", "a", Map.of("x", "1"))).block(T);
        assertThat(maps.patch("a", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"x\":null,\"y\":\"2\"}}}").block(T)
                .getMetadata().getLabels()).isEqualTo(Map.of("y", "2"));
        assertThat(maps.patch("a", PatchType.JSON_PATCH,
                "[{\"op\":\"add\",\"path\":\"/data/z\",\"value\":\"3\"},{\"op\":\"remove\",\"path\":\"/data/k\"}]")
                .block(T).getData()).isEqualTo(Map.of("z", "3"));
        assertThat(maps.patch("a", PatchType.STRATEGIC_MERGE, "{\"data\":{\"s\":\"4\"}}").block(T).getData())
                .containsEntry("s", "4");
        V1ConfigMap applied = maps.apply(map("shop", "b", null), "test", true).block(T);
        assertThat(applied.getMetadata().getResourceVersion()).isNotBlank();
        StepVerifier.create(maps.patch("a", PatchType.JSON_PATCH, "[{\"op\":\"test\",\"path\":\"/data/z\",\"value\":\"9\"}]"))
                .expectErrorSatisfies(e -> assertThat(((KubernetesApiException) e).code()).isEqualTo(422))
                .verify(T);
    }

    @Test
    void statusSubresourceOnlyChangesStatusAndMainEndpointKeepsIt() {
        ResourceClient<V1Deployment> deployments = client.resource(V1Deployment.class).inNamespace("shop");
        V1Deployment d = deployments.create(new V1Deployment().metadata(new V1ObjectMeta().name("web"))
                .spec(new V1DeploymentSpec().replicas(1))).block(T);
        assertThat(d.getMetadata().getGeneration()).isEqualTo(1);
        d.setStatus(new V1DeploymentStatus().replicas(1));
        d.getSpec().setReplicas(5);
        V1Deployment afterStatus = deployments.replaceStatus(d).block(T);
        assertThat(afterStatus.getSpec().getReplicas()).isEqualTo(1);
        assertThat(afterStatus.getStatus().getReplicas()).isEqualTo(1);
        assertThat(afterStatus.getMetadata().getGeneration()).isEqualTo(1);
        afterStatus.getSpec().setReplicas(3);
        afterStatus.setStatus(new V1DeploymentStatus().replicas(42));
        V1Deployment afterSpec = deployments.replace(afterStatus).block(T);
        assertThat(afterSpec.getSpec().getReplicas()).isEqualTo(3);
        assertThat(afterSpec.getStatus().getReplicas()).isEqualTo(1);
        assertThat(afterSpec.getMetadata().getGeneration()).isEqualTo(2);
        V1Deployment patched = deployments.patchStatus("web", PatchType.MERGE, "{\"status\":{\"replicas\":3}}").block(T);
        assertThat(patched.getStatus().getReplicas()).isEqualTo(3);
    }

    @Test
    void noOpUpdateKeepsTheVersionAndFinalizersDelayDeletion() {
        V1ConfigMap a = maps.create(map("shop", "a", null).metadata(new V1ObjectMeta().name("a")
                .finalizers(List.of("example.com/hold")))).block(T);
        assertThat(maps.replace(a).block(T).getMetadata().getResourceVersion())
                .isEqualTo(a.getMetadata().getResourceVersion());
        maps.delete("a").block(T);
        V1ConfigMap marked = maps.get("a").block(T);
        assertThat(marked.getMetadata().getDeletionTimestamp()).isNotNull();
        maps.patch("a", PatchType.MERGE, "{\"metadata\":{\"finalizers\":null}}").block(T);
        StepVerifier.create(maps.get("a")).expectError(KubernetesApiException.NotFound.class).verify(T);
    }

    @Test
    void namespacesAndClusterScopedPaths() {
        maps.create(map("shop", "a", null)).block(T);
        client.resource(V1ConfigMap.class).inNamespace("other").create(map("other", "a", null)).block(T);
        assertThat(client.resource(V1ConfigMap.class).inAnyNamespace().list(ListOptions.none()).block(T).items())
                .extracting(m -> m.getMetadata().getNamespace()).containsExactly("other", "shop");
        assertThat(maps.list(ListOptions.none()).block(T).items()).hasSize(1);
        ResourceClient<V1Namespace> namespaces = client.resource(V1Namespace.class);
        namespaces.create(new V1Namespace().metadata(new V1ObjectMeta().name("shop"))).block(T);
        assertThat(namespaces.get("shop").block(T).getMetadata().getNamespace()).isNull();
        StepVerifier.create(client.resource(V1Pod.class).inNamespace("shop").create(new V1Pod()))
                .expectErrorSatisfies(e -> assertThat(((KubernetesApiException) e).code()).isEqualTo(422))
                .verify(T);
    }

    @Test
    void customResourcesAsDynamicObjects() {
        ResourceType<DynamicObject> widgets = ResourceType.dynamic("example.com", "v1", "widgets", "Widget", true);
        server.state().register(widgets);
        ResourceClient<DynamicObject> client = this.client.resource(widgets).inNamespace("shop");
        DynamicObject w = new DynamicObject("example.com/v1", "Widget", new V1ObjectMeta().name("w1"));
        w.set("spec", server.state().json().mapper().readTree("{\"size\":3}"));
        client.create(w).block(T);
        assertThat(client.get("w1").block(T).get("spec").path("size").asInt()).isEqualTo(3);
        StepVerifier.create(this.client.resource(ResourceType.dynamic("example.com", "v1", "gadgets", "Gadget", true))
                        .inNamespace("shop").list(ListOptions.none()))
                .expectErrorSatisfies(e -> assertThat(((KubernetesApiException) e).getMessage())
                        .contains("the server could not find the requested resource"))
                .verify(T);
    }

    @Test
    void listPagesWithContinueAtOneConsistentVersion() {
        for (int i = 0; i < 5; i++) {
            maps.create(map("shop", "m" + i, null)).block(T);
        }
        ObjectList<V1ConfigMap> first = maps.list(ListOptions.none().withLimit(2)).block(T);
        assertThat(first.items()).extracting(m -> m.getMetadata().getName()).containsExactly("m0", "m1");
        assertThat(first.remainingItemCount()).isEqualTo(3);
        // changes after the first page are not seen by the next pages
        maps.delete("m3").block(T);
        maps.create(map("shop", "m5", null)).block(T);
        ObjectList<V1ConfigMap> second = maps.list(ListOptions.none().withLimit(2).withContinue(first.continueToken())).block(T);
        ObjectList<V1ConfigMap> third = maps.list(ListOptions.none().withLimit(2).withContinue(second.continueToken())).block(T);
        assertThat(second.items()).extracting(m -> m.getMetadata().getName()).containsExactly("m2", "m3");
        assertThat(third.items()).extracting(m -> m.getMetadata().getName()).containsExactly("m4");
        assertThat(third.hasMore()).isFalse();
        assertThat(List.of(second.resourceVersion(), third.resourceVersion())).containsOnly(first.resourceVersion());
        assertThat(maps.listAll(2).collectList().block(T)).extracting(m -> m.getMetadata().getName())
                .containsExactly("m0", "m1", "m2", "m4", "m5");
    }

    @Test
    void continueTokenAndExactListExpireWithCompaction() {
        for (int i = 0; i < 3; i++) {
            maps.create(map("shop", "m" + i, null)).block(T);
        }
        ObjectList<V1ConfigMap> first = maps.list(ListOptions.none().withLimit(1)).block(T);
        assertThat(maps.list(ListOptions.none().withResourceVersion("3", "Exact")).block(T).items()).hasSize(2);
        // compaction keeps the revision it compacts at: make the first page's version older than that
        maps.create(map("shop", "m3", null)).block(T);
        server.state().compact();
        StepVerifier.create(maps.list(ListOptions.none().withLimit(1).withContinue(first.continueToken())))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(KubernetesApiException.Gone.class);
                    assertThat(((KubernetesApiException) e).reason()).isEqualTo("Expired");
                })
                .verify(T);
        StepVerifier.create(maps.list(ListOptions.none().withResourceVersion("3", "Exact")))
                .expectError(KubernetesApiException.Gone.class).verify(T);
        // the documented fix: one unpaginated list (any version)
        assertThat(maps.list(ListOptions.none().withResourceVersion("0", null)).block(T).items()).hasSize(4);
        StepVerifier.create(maps.list(ListOptions.none().withResourceVersion("999", "NotOlderThan")))
                .expectErrorSatisfies(e -> assertThat(((KubernetesApiException) e).code()).isEqualTo(504))
                .verify(T);
    }

    @Test
    void labelAndFieldSelectors() {
        maps.create(map("shop", "a", Map.of("app", "web", "tier", "front"))).block(T);
        maps.create(map("shop", "b", Map.of("app", "db"))).block(T);
        maps.create(map("shop", "c", Map.of())).block(T);
        assertThat(names(maps.withLabelSelector("app=web"))).containsExactly("a");
        assertThat(names(maps.withLabelSelector("app!=web"))).containsExactly("b", "c");
        assertThat(names(maps.withLabelSelector("app in (web, db)"))).containsExactly("a", "b");
        assertThat(names(maps.withLabelSelector("app notin (web),tier"))).isEmpty();
        assertThat(names(maps.withLabelSelector("!app"))).containsExactly("c");
        assertThat(names(maps.withLabelSelector("app"))).containsExactly("a", "b");
        assertThat(names(maps.withFieldSelector("metadata.name=b"))).containsExactly("b");
        assertThat(names(maps.withFieldSelector("metadata.name!=b,metadata.namespace=shop"))).containsExactly("a", "c");
        StepVerifier.create(maps.withFieldSelector("status.phase=Running").list(ListOptions.none()))
                .expectErrorSatisfies(e -> assertThat(((KubernetesApiException) e).code()).isEqualTo(400))
                .verify(T);
    }

    private static List<String> names(ResourceClient<V1ConfigMap> c) {
        return c.list(ListOptions.none()).block(T).items().stream().map(m -> m.getMetadata().getName()).toList();
    }

    @Test
    void watchResumesFromAVersionAndSeesEveryChange() {
        maps.create(map("shop", "a", null)).block(T);
        String rv = maps.list(ListOptions.none()).block(T).resourceVersion();
        StepVerifier.create(maps.watch(WatchOptions.from(rv)))
                .then(() -> {
                    server.state().update(server.state().find(ResourceType.of(V1ConfigMap.class), "shop", "a")
                            .orElseThrow().data(Map.of("k", "v2")));
                    server.state().create(map("shop", "b", null));
                    server.state().delete(map("shop", "a", null));
                })
                .assertNext(e -> assertThat(e.type()).isEqualTo(WatchEvent.Type.MODIFIED))
                .assertNext(e -> assertThat(e.type()).isEqualTo(WatchEvent.Type.ADDED))
                .assertNext(e -> {
                    assertThat(e.type()).isEqualTo(WatchEvent.Type.DELETED);
                    assertThat(e.object().getMetadata().getResourceVersion()).isEqualTo("5");
                })
                .thenCancel()
                .verify(T);
    }

    @Test
    void watchWithoutVersionStartsWithTheCurrentObjects() {
        maps.create(map("shop", "a", null)).block(T);
        StepVerifier.create(maps.watch(new WatchOptions(null, null, null, null, null, false, false)))
                .assertNext(e -> assertThat(e.type()).isEqualTo(WatchEvent.Type.ADDED))
                .then(() -> server.state().create(map("shop", "b", null)))
                .assertNext(e -> assertThat(e.object().getMetadata().getName()).isEqualTo("b"))
                .thenCancel()
                .verify(T);
    }

    @Test
    void watchFromACompactedVersionGetsA410ErrorEvent() {
        maps.create(map("shop", "a", null)).block(T);
        server.state().compact();
        StepVerifier.create(maps.watch(WatchOptions.from("1")))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(KubernetesApiException.Gone.class);
                    assertThat(e.getMessage()).contains("too old resource version: 1 (3)");
                })
                .verify(T);
    }

    @Test
    void historyWindowCompactsOldVersions() {
        for (int i = 0; i < 60; i++) {
            server.state().create(map("shop", "m" + i, null));
        }
        assertThat(server.state().oldestResourceVersion(ResourceType.of(V1ConfigMap.class))).isEqualTo(11);
        StepVerifier.create(maps.watch(WatchOptions.from("10"))).expectError(KubernetesApiException.Gone.class).verify(T);
        StepVerifier.create(maps.watch(WatchOptions.from("11")).take(50)).expectNextCount(50).verifyComplete();
    }

    @Test
    void eachResourceHasItsOwnHistorySoChurnElsewhereNeverExpiresAQuietWatch() {
        V1ConfigMap quiet = maps.create(map("shop", "quiet", null)).block(T);
        ResourceType<V1Pod> pods = ResourceType.of(V1Pod.class);
        for (int i = 0; i < 200; i++) {
            server.state().create(new V1Pod().metadata(new V1ObjectMeta().namespace("shop").name("p" + i)));
        }
        maps.create(map("shop", "after", null)).block(T);

        assertThat(server.state().oldestResourceVersion(ResourceType.of(V1ConfigMap.class))).isEqualTo(1);
        assertThat(server.state().oldestResourceVersion(pods)).isEqualTo(152);
        StepVerifier.create(maps.watch(WatchOptions.from(quiet.getMetadata().getResourceVersion())))
                .assertNext(e -> assertThat(describe(e)).isEqualTo("ADDED after"))
                .thenCancel()
                .verify(T);
        StepVerifier.create(client.resource(pods).inNamespace("shop").watch(WatchOptions.from("151")))
                .expectError(KubernetesApiException.Gone.class)
                .verify(T);
    }

    private static String describe(WatchEvent<? extends io.kubernetes.client.common.KubernetesObject> e) {
        return e.type() + " " + e.object().getMetadata().getName();
    }

    @Test
    void aStrategicMergePatchMergesListsByTheirMergeKeysAndMalformedDirectivesGetTheRealStatus() {
        ResourceClient<V1Deployment> deployments = client.resource(V1Deployment.class).inNamespace("shop");
        deployments.create(new V1Deployment().metadata(new V1ObjectMeta().name("d"))
                .spec(new V1DeploymentSpec().template(new io.kubernetes.client.openapi.models.V1PodTemplateSpec()
                        .spec(new io.kubernetes.client.openapi.models.V1PodSpec().containers(List.of(
                                new io.kubernetes.client.openapi.models.V1Container().name("app").image("a:1")))))))
                .block(T);

        V1Deployment patched = deployments.patch("d", PatchType.STRATEGIC_MERGE, "{\"metadata\":{\"labels\":{\"a\":\"b\"}},"
                + "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"sidecar\",\"image\":\"s:1\"}]}}}}")
                .block(T);

        assertThat(patched.getMetadata().getLabels()).containsEntry("a", "b");
        assertThat(patched.getSpec().getTemplate().getSpec().getContainers())
                .extracting(io.kubernetes.client.openapi.models.V1Container::getName).containsExactly("sidecar", "app");
        StepVerifier.create(deployments.patch("d", PatchType.STRATEGIC_MERGE, "{\"spec\":{\"$patch\":\"bogus\"}}"))
                .expectErrorSatisfies(e -> {
                    assertThat(((KubernetesApiException) e).code()).isEqualTo(500);
                    assertThat(e.getMessage()).contains("unknown patch type: bogus in map: map[$patch:bogus]");
                })
                .verify(T);
    }

    @Test
    void aHandleWithATimeoutFailsWhatTheServerAnswersTooLate() {
        maps.create(map("shop", "slow", null)).block(T);
        server.faults().once(RequestInfo.reads(), Fault.delay(Duration.ofSeconds(30)));

        StepVerifier.create(maps.withTimeout(Duration.ofMillis(300)).get("slow"))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(TransportException.class);
                    assertThat(e.getMessage()).contains("no complete response within PT0.3S");
                })
                .verify(T);
        assertThat(maps.withTimeout(Duration.ofSeconds(5)).get("slow").block(T).getMetadata().getName()).isEqualTo("slow");
    }

    @Test
    void rawRequestsReachAnyPath() {
        io.reactiveinformer.client.RawResponse ready = client.raw(io.reactiveinformer.client.RawRequest.get("/readyz"))
                .block(T);
        assertThat(ready.code()).isEqualTo(200);
        assertThat(ready.text()).isEqualTo("ok");
        StepVerifier.create(client.raw(io.reactiveinformer.client.RawRequest.get("/metrics")))
                .expectError(KubernetesApiException.NotFound.class)
                .verify(T);
    }

    @Test
    void streamingListSendsInitialEventsThenTheEndBookmark() {
        maps.create(map("shop", "a", null)).block(T);
        maps.create(map("shop", "b", null)).block(T);
        StepVerifier.create(maps.watch(WatchOptions.from("").withInitialEvents()))
                .expectNextMatches(e -> e.type() == WatchEvent.Type.ADDED)
                .expectNextMatches(e -> e.type() == WatchEvent.Type.ADDED)
                .assertNext(e -> {
                    assertThat(e.type()).isEqualTo(WatchEvent.Type.BOOKMARK);
                    assertThat(e.object().getMetadata().getResourceVersion()).isEqualTo("3");
                    assertThat(e.object().getMetadata().getAnnotations())
                            .containsEntry(ClusterState.INITIAL_EVENTS_END, "true");
                })
                .then(() -> server.state().create(map("shop", "c", null)))
                .expectNextMatches(e -> e.type() == WatchEvent.Type.ADDED && e.object().getMetadata().getName().equals("c"))
                .thenCancel()
                .verify(T);
    }

    @Test
    void bookmarksOnRequestCarryOnlyTheVersion() {
        StepVerifier.create(maps.watch(WatchOptions.from("1")))
                .then(() -> server.state().create(map("other", "x", null)))
                // the watch request reaches the server asynchronously: ask until one is sent
                .then(() -> reactor.core.publisher.Flux.interval(Duration.ofMillis(20)).take(200)
                        .subscribe(t -> server.state().bookmark()))
                .assertNext(e -> {
                    assertThat(e.type()).isEqualTo(WatchEvent.Type.BOOKMARK);
                    assertThat(e.object().getMetadata().getResourceVersion()).isEqualTo("2");
                    assertThat(e.object().getMetadata().getName()).isNull();
                })
                .thenCancel()
                .verify(T);
    }

    @Test
    void watchEndsNormallyAfterTimeoutSeconds() {
        StepVerifier.create(maps.watch(WatchOptions.from("1").withTimeoutSeconds(1)))
                .expectComplete()
                .verify(T);
    }

    @Test
    void selectorsTurnMovesIntoAddedAndDeleted() {
        maps.create(map("shop", "a", Map.of("app", "web"))).block(T);
        StepVerifier.create(maps.withLabelSelector("app=web").watch(WatchOptions.from("2")))
                .then(() -> maps.patch("a", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"app\":\"db\"}}}").block(T))
                .assertNext(e -> assertThat(e.type()).isEqualTo(WatchEvent.Type.DELETED))
                .then(() -> maps.patch("a", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"app\":\"web\"}}}").block(T))
                .assertNext(e -> assertThat(e.type()).isEqualTo(WatchEvent.Type.ADDED))
                .thenCancel()
                .verify(T);
    }

    @Test
    void closedWatchesAreForgotten() {
        StepVerifier.create(maps.watch(WatchOptions.from("1")))
                .then(() -> server.state().create(map("shop", "a", null)))
                .expectNextCount(1)
                .thenCancel()
                .verify(T);
        server.state().create(map("shop", "b", null));
        assertThat(server.requests()).extracting(RequestInfo::isWatch).containsExactly(true);
    }

    /**
     * The client keeps its connection to the server alive between requests; once {@code close()}
     * returns, that connection must not serve another one. Repeated, because the server used to return
     * before its connections had closed and a request could slip in first.
     */
    @Test
    void noRequestIsServedAfterCloseReturns() {
        int port = server.port();
        for (int i = 0; i < 100; i++) {
            maps.list(ListOptions.none()).block(T);
            server.close();
            StepVerifier.create(maps.list(ListOptions.none()))
                    .expectError(TransportException.class)
                    .verify(T);
            server = SimulatedApiServer.start(server.state(), port);
        }
    }
}
