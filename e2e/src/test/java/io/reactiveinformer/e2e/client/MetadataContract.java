package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.Encoding;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Metadata-only reads ({@code PartialObjectMetadata}): a default client lists, gets, watches and streams them in
 * protobuf, for a built-in kind and for a custom resource alike (the responses' {@code Content-Type}s say so), and
 * decodes what a client forced to JSON decodes from the same server.
 */
abstract class MetadataContract extends ClientContract {

    private static final String PROTOBUF = "application/vnd.kubernetes.protobuf";

    private final List<String> contentTypes = new CopyOnWriteArrayList<>();
    private final KubernetesClient recording;

    MetadataContract(Backend backend) {
        super(backend);
        recording = KubernetesClient.builder(admin().config())
                .httpClient(http -> http.doOnResponse((response, connection) -> contentTypes.add(
                        response.method().name() + " " + response.responseHeaders().get("Content-Type"))))
                .build();
    }

    @AfterEach
    void closeRecording() {
        recording.close();
    }

    @Test
    void configMapsReadAsMetadataInProtobuf() {
        String ns = namespace("metadata");
        for (String name : List.of("a", "b")) {
            await(configMaps(ns).create(configMap(name, Map.of("payload", "x".repeat(1024)), Map.of("app", "web"))));
        }

        assertReadsAlike(recording.metadata(V1ConfigMap.class).inNamespace(ns).withLabelSelector("app=web"),
                List.of("a", "b"));
    }

    @Test
    void customResourcesReadAsMetadataInProtobuf() {
        ResourceType<DynamicObject> widgets = backend().widgets();
        String ns = namespace("metadata-cr");
        ResourceClient<DynamicObject> writer = admin().resource(widgets).inNamespace(ns);
        for (String name : List.of("w1", "w2")) {
            await(writer.create(new DynamicObject(widgets.apiVersion(), "Widget",
                    new V1ObjectMeta().name(name).labels(Map.of("app", "web")))
                    .set("spec", admin().json().mapper().readTree("{\"size\":3}"))));
        }

        assertReadsAlike(recording.metadata(widgets).inNamespace(ns), List.of("w1", "w2"));
    }

    /**
     * A list, a get, a watch from the list's version and a streaming list, each equal to the JSON-forced read,
     * and each of the protobuf ones answered in protobuf.
     */
    private void assertReadsAlike(ResourceClient<PartialObjectMetadata> metadata, List<String> names) {
        ResourceClient<PartialObjectMetadata> json = metadata.withEncoding(Encoding.JSON);

        ObjectList<PartialObjectMetadata> listed = await(metadata.list(ListOptions.none()));
        PartialObjectMetadata got = await(metadata.get(names.get(0)));
        List<WatchEvent<PartialObjectMetadata>> streamed = streamingList(metadata, names.size());
        List<String> protobufTypes = List.copyOf(contentTypes);

        assertThat(listed.items()).extracting(m -> m.getMetadata().getName()).containsExactlyElementsOf(names);
        assertThat(listed.items()).allSatisfy(m -> {
            assertThat(m.getKind()).isEqualTo(PartialObjectMetadata.KIND);
            assertThat(m.getApiVersion()).isEqualTo(PartialObjectMetadata.API_VERSION);
        });
        assertThat(listed.items()).isEqualTo(await(json.list(ListOptions.none()
                .withResourceVersion(listed.resourceVersion(), "Exact"))).items());
        assertThat(got).isEqualTo(await(json.get(names.get(0))));
        assertThat(streamed.subList(0, names.size())).isEqualTo(streamingList(json, names.size()).subList(0, names.size()));
        assertThat(protobufTypes).containsExactly("GET " + PROTOBUF, "GET " + PROTOBUF,
                "GET " + PROTOBUF + ";stream=watch");
        assertThat(contentTypes.subList(protobufTypes.size(), contentTypes.size()))
                .allSatisfy(type -> assertThat(type).startsWith("GET application/json"));
    }

    /** The initial events by name, then the bookmark that ends them. */
    private static List<WatchEvent<PartialObjectMetadata>> streamingList(ResourceClient<PartialObjectMetadata> metadata,
                                                                         int objects) {
        List<WatchEvent<PartialObjectMetadata>> events = metadata.watch(WatchOptions.from(null).withInitialEvents()
                        .withTimeoutSeconds(60))
                .takeUntil(e -> e.type() == WatchEvent.Type.BOOKMARK && e.object().getMetadata().getAnnotations() != null
                        && e.object().getMetadata().getAnnotations().containsKey("k8s.io/initial-events-end"))
                .collectList().block(TIMEOUT);
        assertThat(events).hasSize(objects + 1);
        assertThat(events.get(objects).type()).isEqualTo(WatchEvent.Type.BOOKMARK);
        return events.stream().sorted(Comparator.comparing(e -> e.type() == WatchEvent.Type.BOOKMARK ? "~"
                : e.object().getMetadata().getName())).toList();
    }
}
