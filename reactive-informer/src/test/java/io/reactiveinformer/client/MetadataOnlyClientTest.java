package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Secret;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.config.ClientConfig;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

class MetadataOnlyClientTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    /** Reads ask for the metadata in protobuf, then JSON (what the server answers here); writes in JSON. */
    private static final String LIST_ACCEPT = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;"
            + "g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
    private static final String OBJECT_ACCEPT = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;"
            + "g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
    private static final String WRITE_ACCEPT =
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
    private static final byte[] META_LIST = bytes("""
            {"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"42"},
             "items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",
                       "metadata":{"name":"a","namespace":"shop","resourceVersion":"40","labels":{"app":"web"},
                                   "annotations":{"note":"x"}}},
                      {"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",
                       "metadata":{"name":"b","namespace":"shop","resourceVersion":"41"}}]}""");
    private static final byte[] META_EVENTS = bytes("""
            {"type":"ADDED","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namespace":"shop","resourceVersion":"43"}}}
            {"type":"BOOKMARK","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"44"}}}
            """);
    private static final byte[] META_OBJECT = bytes("""
            {"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namespace":"shop","resourceVersion":"45","labels":{"app":"web"}}}""");
    // read here: the server's handlers run on event loops, where BlockHound forbids file reads
    private static final byte[] FULL_POD = Fixtures.bytes("pod.json");

    private final FakeApiServer server = new FakeApiServer();
    private final KubernetesClient client =
            KubernetesClient.create(ClientConfig.forServer(URI.create(server.url())).withNamespace("shop"));

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private void answer(byte[] body) {
        server.handle((req, res) -> res.header("Content-Type", "application/json").sendByteArray(Mono.just(body)));
    }

    @Test
    void listAsksForThePartialObjectMetadataListAndDecodesIt() {
        answer(META_LIST);

        StepVerifier.create(client.metadata(V1Pod.class).withLabelSelector("app=web").list(ListOptions.none()))
                .assertNext(page -> {
                    assertThat(page.resourceVersion()).isEqualTo("42");
                    assertThat(page.items()).extracting(p -> p.getMetadata().getName()).containsExactly("a", "b");
                    PartialObjectMetadata a = page.items().get(0);
                    assertThat(a.getKind()).isEqualTo("PartialObjectMetadata");
                    assertThat(a.getApiVersion()).isEqualTo("meta.k8s.io/v1");
                    assertThat(a.getMetadata().getLabels()).isEqualTo(Map.of("app", "web"));
                    assertThat(a.getMetadata().getAnnotations()).isEqualTo(Map.of("note", "x"));
                    assertThat(a.getMetadata().getResourceVersion()).isEqualTo("40");
                })
                .expectComplete()
                .verify(WAIT);

        assertThat(server.last().uri()).isEqualTo("/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb");
        assertThat(server.last().headers().get("Accept")).isEqualTo(LIST_ACCEPT);
    }

    @Test
    void watchAsksForPartialObjectMetadataAndDecodesEvents() {
        answer(META_EVENTS);

        StepVerifier.create(client.resource(V1Secret.class).metadataOnly().inAnyNamespace()
                        .watch(WatchOptions.from("42")))
                .assertNext(e -> {
                    assertThat(e.type()).isEqualTo(WatchEvent.Type.ADDED);
                    assertThat(e.object()).isInstanceOf(PartialObjectMetadata.class);
                    assertThat(e.object().getMetadata().getResourceVersion()).isEqualTo("43");
                })
                .assertNext(e -> assertThat(e.type()).isEqualTo(WatchEvent.Type.BOOKMARK))
                .expectComplete()
                .verify(WAIT);

        assertThat(server.last().uri()).startsWith("/api/v1/secrets?watch=true");
        assertThat(server.last().headers().get("Accept")).isEqualTo(OBJECT_ACCEPT);
    }

    @Test
    void getAndPatchAskForPartialObjectMetadata() {
        answer(META_OBJECT);
        ResourceClient<PartialObjectMetadata> configMaps = client.metadata(V1ConfigMap.class);

        StepVerifier.create(configMaps.get("a"))
                .assertNext(m -> assertThat(m.getMetadata().getLabels()).containsEntry("app", "web"))
                .expectComplete()
                .verify(WAIT);
        assertThat(server.last().headers().get("Accept")).isEqualTo(OBJECT_ACCEPT);

        StepVerifier.create(configMaps.patch("a", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"app\":\"web\"}}}"))
                .assertNext(m -> assertThat(m.getMetadata().getResourceVersion()).isEqualTo("45"))
                .expectComplete()
                .verify(WAIT);
        assertThat(server.last().method()).isEqualTo("PATCH");
        assertThat(server.last().uri()).isEqualTo("/api/v1/namespaces/shop/configmaps/a");
        assertThat(server.last().headers().get("Accept")).isEqualTo(WRITE_ACCEPT);
    }

    @Test
    void aServerWithoutTheRepresentationSendsWholeObjectsWhichDecodeToTheirMetadata() {
        answer(FULL_POD);

        StepVerifier.create(client.metadata(V1Pod.class).get("web"))
                .assertNext(m -> {
                    assertThat(m.getKind()).isEqualTo("Pod");
                    assertThat(m.getMetadata().getName()).isNotEmpty();
                })
                .expectComplete()
                .verify(WAIT);
    }

    @Test
    void theFullHandleAsksForWholeObjects() {
        answer(FULL_POD);

        StepVerifier.create(client.resource(V1Pod.class).get("web")).expectNextCount(1).expectComplete().verify(WAIT);

        // protobuf or JSON, as a built-in kind is read by default: no metadata representation
        assertThat(server.last().headers().get("Accept")).isEqualTo(ResourceClient.ACCEPT_PROTOBUF);
    }

    @Test
    void aMetadataHandleDoesNotSendWholeObjects() {
        ResourceClient<PartialObjectMetadata> pods = client.metadata(V1Pod.class);
        PartialObjectMetadata object = new PartialObjectMetadata(new V1ObjectMeta().name("a").namespace("shop"));

        assertThatThrownBy(() -> pods.create(object)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> pods.replace(object)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> pods.apply(object, "me", false)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(server.requests()).isEmpty();
    }

    @Test
    void theMetadataTypeKeepsTheResourceCoordinates() {
        ResourceType<PartialObjectMetadata> type = ResourceType.of(V1Pod.class).metadataOnly();

        assertThat(type.isMetadataOnly()).isTrue();
        assertThat(type.plural()).isEqualTo("pods");
        assertThat(type.kind()).isEqualTo("Pod");
        assertThat(type.namespaced()).isTrue();
        assertThat(type).isNotEqualTo(ResourceType.of(V1Pod.class)).isEqualTo(type.metadataOnly());
        assertThat(ResourceType.of(V1Pod.class).isMetadataOnly()).isFalse();
    }
}
