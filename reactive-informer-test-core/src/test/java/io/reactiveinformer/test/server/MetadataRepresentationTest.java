package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.test.StepVerifier;
import tools.jackson.databind.JsonNode;

/** The {@code as=PartialObjectMetadata[List]} representation, as the real server negotiates it. */
class MetadataRepresentationTest {

    private static final Duration T = Duration.ofSeconds(10);
    private static final String BASE = "/api/v1/namespaces/shop/configmaps";

    private SimulatedApiServer server;
    private KubernetesClient client;
    private ResourceClient<PartialObjectMetadata> metadata;

    @BeforeEach
    void start() {
        server = SimulatedApiServer.start(ClusterState.builder().build());
        client = server.newClient();
        metadata = client.metadata(V1ConfigMap.class).inNamespace("shop");
        for (String name : new String[] {"a", "b"}) {
            server.state().create(new V1ConfigMap()
                    .metadata(new V1ObjectMeta().namespace("shop").name(name).labels(Map.of("app", name))
                            .annotations(Map.of("note", name)))
                    .data(Map.of("payload", "x".repeat(1000))));
        }
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private RawHttp.Result get(String pathAndQuery, String accept) {
        return RawHttp.exchange(server, HttpClient.create(ConnectionProvider.newConnection())
                .baseUrl(server.url().toString()).headers(h -> h.set("Accept", accept)).get().uri(pathAndQuery))
                .block(T);
    }

    private JsonNode tree(RawHttp.Result result) {
        return server.state().json().mapper().readTree(result.body());
    }

    @Test
    void listAnswersWithAPartialObjectMetadataList() {
        ObjectList<PartialObjectMetadata> page = metadata.list(ListOptions.none()).block(T);

        assertThat(page.resourceVersion()).isEqualTo(Long.toString(server.state().resourceVersion()));
        assertThat(page.items()).extracting(m -> m.getMetadata().getName()).containsExactly("a", "b");
        PartialObjectMetadata a = page.items().get(0);
        assertThat(a.getKind()).isEqualTo("PartialObjectMetadata");
        assertThat(a.getApiVersion()).isEqualTo("meta.k8s.io/v1");
        assertThat(a.getMetadata().getLabels()).isEqualTo(Map.of("app", "a"));
        assertThat(a.getMetadata().getAnnotations()).isEqualTo(Map.of("note", "a"));
        assertThat(a.getMetadata().getUid()).isNotBlank();

        JsonNode raw = tree(get(BASE, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"));
        assertThat(raw.get("kind").asString()).isEqualTo("PartialObjectMetadataList");
        assertThat(raw.get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
        assertThat(raw.get("items").get(0).has("data")).isFalse();
        assertThat(raw.get("items").get(0).get("kind").asString()).isEqualTo("PartialObjectMetadata");
    }

    @Test
    void watchAndGetAnswerWithPartialObjectMetadata() {
        String from = Long.toString(server.state().resourceVersion());
        StepVerifier.create(metadata.watch(WatchOptions.from(from)).filter(e -> e.type() != WatchEvent.Type.BOOKMARK))
                .then(() -> client.resource(V1ConfigMap.class).inNamespace("shop")
                        .patch("a", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"app\":\"changed\"}}}").block(T))
                .assertNext(e -> {
                    assertThat(e.type()).isEqualTo(WatchEvent.Type.MODIFIED);
                    assertThat(e.object().getKind()).isEqualTo("PartialObjectMetadata");
                    assertThat(e.object().getMetadata().getLabels()).isEqualTo(Map.of("app", "changed"));
                })
                .thenCancel()
                .verify(T);

        PartialObjectMetadata b = metadata.get("b").block(T);
        assertThat(b.getKind()).isEqualTo("PartialObjectMetadata");
        assertThat(b.getMetadata().getResourceVersion()).isNotBlank();
        assertThat(get(BASE + "/b", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1").text())
                .doesNotContain("\"data\"").contains("\"kind\":\"PartialObjectMetadata\"");
    }

    @Test
    void plainJsonStillGetsWholeObjects() {
        RawHttp.Result whole = get(BASE, "application/json");

        assertThat(tree(whole).get("kind").asString()).isEqualTo("ConfigMapList");
        assertThat(whole.text()).contains("payload");
        // the first range the server can produce wins: Table is not, plain JSON is
        assertThat(tree(get(BASE + "/a", "application/json;as=Table;g=meta.k8s.io;v=v1,application/json"))
                .get("kind").asString()).isEqualTo("ConfigMap");
    }

    @Test
    void aRepresentationTheServerCannotProduceIsNotAcceptable() {
        // a LIST is a PartialObjectMetadataList, never a PartialObjectMetadata
        RawHttp.Result list = get(BASE, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
        assertThat(list.status()).isEqualTo(406);
        assertThat(tree(list).get("reason").asString()).isEqualTo("NotAcceptable");

        assertThat(get(BASE + "/a", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2").status())
                .isEqualTo(406);
    }
}
