package io.reactiveinformer.e2e.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.Encoding;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * A metadata-only informer against a real kube-apiserver, which converts to PartialObjectMetadata itself, in
 * protobuf as the client asks first (the responses' {@code Content-Type}s say so).
 */
@KubeApiServerTest
class MetadataInformerE2ETest {

    private static final Duration T = Duration.ofSeconds(30);
    private static final String LABEL = "e2e=metadata";

    private final KubeApiServer env;
    private KubernetesClient client;
    private ResourceClient<V1ConfigMap> maps;
    private String namespace;
    private final List<String> contentTypes = new CopyOnWriteArrayList<>();

    MetadataInformerE2ETest(KubeApiServer env) {
        this.env = env;
    }

    @BeforeEach
    void namespace() {
        client = KubernetesClient.builder(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"))
                .httpClient(http -> http.doOnResponse((response, connection) -> contentTypes.add(
                        response.method().name() + " " + response.responseHeaders().get("Content-Type"))))
                .build();
        namespace = client.resource(V1Namespace.class)
                .create(new V1Namespace().metadata(new V1ObjectMeta().generateName("metadata-")))
                .block(T).getMetadata().getName();
        maps = client.resource(V1ConfigMap.class).inNamespace(namespace);
    }

    @AfterEach
    void close() {
        client.resource(V1Namespace.class).delete(namespace).block(T);
        client.close();
    }

    private static V1ConfigMap map(String name) {
        return new V1ConfigMap()
                .metadata(new V1ObjectMeta().name(name).labels(Map.of("e2e", "metadata", "name", name))
                        .annotations(Map.of("owner", "team-" + name)))
                .data(Map.of("payload", "x".repeat(4096)));
    }

    @Test
    void syncsMetadataWithoutDataAndNotifiesUpdates() {
        for (String name : List.of("a", "b", "c")) {
            maps.create(map(name)).block(T);
        }
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        SharedIndexInformer<PartialObjectMetadata> informer = factory.informer(
                InformerSpec.metadataOnly(V1ConfigMap.class).inNamespace(namespace).withLabelSelector(LABEL));
        try {
            factory.start();
            factory.waitForCacheSync().block(T);

            assertThat(informer.indexer().list()).hasSize(3).allSatisfy(m -> {
                // the server converted: a fallback to whole objects would keep kind ConfigMap
                assertThat(m.getKind()).isEqualTo("PartialObjectMetadata");
                assertThat(m.getApiVersion()).isEqualTo("meta.k8s.io/v1");
                assertThat(m.getMetadata().getNamespace()).isEqualTo(namespace);
                assertThat(m.getMetadata().getResourceVersion()).isNotBlank();
                assertThat(m.getMetadata().getUid()).isNotBlank();
            });
            ResourceClient<PartialObjectMetadata> metadata = client.metadata(V1ConfigMap.class).inNamespace(namespace)
                    .withLabelSelector(LABEL);
            ObjectList<PartialObjectMetadata> listed = metadata.list(ListOptions.none()).block(T);
            assertThat(listed.items()).hasSize(3).isEqualTo(metadata.withEncoding(Encoding.JSON)
                    .list(ListOptions.none().withResourceVersion(listed.resourceVersion(), "Exact")).block(T).items());
            PartialObjectMetadata b = informer.lister().namespace(namespace).get("b").orElseThrow();
            assertThat(b.getMetadata().getLabels()).containsEntry("name", "b");
            assertThat(b.getMetadata().getAnnotations()).containsEntry("owner", "team-b");
            // what the server sends has no data (managedFields still name the data's fields)
            assertThat(new String(client.json().encode(client.metadata(V1ConfigMap.class).inNamespace(namespace)
                    .get("b").block(T)), StandardCharsets.UTF_8)).doesNotContain("\"data\"", "xxxx");

            String before = informer.lister().namespace(namespace).get("a").orElseThrow()
                    .getMetadata().getResourceVersion();
            StepVerifier.create(informer.notifications()
                            .filter(n -> n instanceof Notification.Updated<PartialObjectMetadata>)
                            .cast(Notification.Updated.class)
                            .next())
                    .then(() -> maps.patch("a", PatchType.MERGE,
                            "{\"metadata\":{\"annotations\":{\"owner\":\"team-z\"}},\"data\":{\"payload\":\"y\"}}")
                            .block(T))
                    .assertNext(updated -> {
                        PartialObjectMetadata now = (PartialObjectMetadata) updated.newObject();
                        assertThat(updated.key()).isEqualTo(namespace + "/a");
                        assertThat(now.getMetadata().getAnnotations()).containsEntry("owner", "team-z");
                        assertThat(now.getMetadata().getResourceVersion()).isNotEqualTo(before);
                        assertThat(((PartialObjectMetadata) updated.oldObject()).getMetadata().getResourceVersion())
                                .isEqualTo(before);
                    })
                    .expectComplete()
                    .verify(T);

            StepVerifier.create(informer.notifications()
                            .filter(n -> n instanceof Notification.Deleted<PartialObjectMetadata>)
                            .next())
                    .then(() -> maps.delete("c").block(T))
                    .assertNext(deleted -> assertThat(deleted.key()).isEqualTo(namespace + "/c"))
                    .expectComplete()
                    .verify(T);
        } finally {
            factory.shutdown().block(T);
        }
        // every read in protobuf (the informer's streaming list and watch, the list, the get) but the list forced
        // to JSON
        List<String> reads = contentTypes.stream().filter(type -> type.startsWith("GET ")).toList();
        assertThat(reads).filteredOn(type -> type.startsWith("GET application/json")).hasSize(1);
        assertThat(reads).filteredOn(type -> !type.startsWith("GET application/json"))
                .allSatisfy(type -> assertThat(type).startsWith("GET application/vnd.kubernetes.protobuf"))
                .contains("GET application/vnd.kubernetes.protobuf", "GET application/vnd.kubernetes.protobuf;stream=watch");
    }
}
