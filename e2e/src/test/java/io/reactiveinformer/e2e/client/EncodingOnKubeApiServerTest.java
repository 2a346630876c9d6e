package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.Encoding;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import reactor.core.publisher.Flux;

/**
 * What goes over the wire with kube-apiserver: a default client reads a built-in kind in protobuf (the responses'
 * {@code Content-Type}s say so: objects, lists, watch streams, error Statuses), a JSON-forced one in JSON only, and
 * both decode the same objects, events and errors.
 */
@KubeApiServerTest
class EncodingOnKubeApiServerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String ns = "encoding-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
    private final ClientConfig config;
    private final List<String> protobufTypes = new CopyOnWriteArrayList<>();
    private final List<String> jsonTypes = new CopyOnWriteArrayList<>();
    private final KubernetesClient protobuf;
    private final KubernetesClient json;

    EncodingOnKubeApiServerTest(KubeApiServer env) {
        config = ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin");
        protobuf = recording(config, protobufTypes);
        json = recording(config.withEncoding(Encoding.JSON), jsonTypes);
    }

    private static KubernetesClient recording(ClientConfig config, List<String> contentTypes) {
        return KubernetesClient.builder(config)
                .httpClient(http -> http.doOnResponse((response, connection) ->
                        contentTypes.add(response.method().name() + " " + response.responseHeaders().get("Content-Type"))))
                .build();
    }

    @AfterEach
    void close() {
        protobuf.close();
        json.close();
    }

    @Test
    void theDefaultClientReadsProtobufAndDecodesWhatTheJsonClientDoes() {
        json.resource(V1Namespace.class).create(new V1Namespace().metadata(new V1ObjectMeta().name(ns))).block(TIMEOUT);
        ResourceClient<V1ConfigMap> writer = json.resource(V1ConfigMap.class).inNamespace(ns);
        Flux.range(0, 3).concatMap(i -> writer.create(new V1ConfigMap().metadata(new V1ObjectMeta().name("c" + i)
                        .labels(Map.of("app", "web")).annotations(Map.of("note", "ünïcödé ✓")))
                .data(Map.of("k", "v" + i)).binaryData(Map.of("blob", "bytes".getBytes(StandardCharsets.UTF_8)))))
                .then().block(TIMEOUT);
        int writes = jsonTypes.size();
        ResourceClient<V1ConfigMap> inProtobuf = protobuf.resource(V1ConfigMap.class).inNamespace(ns);
        ResourceClient<V1ConfigMap> inJson = json.resource(V1ConfigMap.class).inNamespace(ns);

        ObjectList<V1ConfigMap> listed = inProtobuf.list(ListOptions.none()).block(TIMEOUT);
        assertThat(listed.items()).hasSize(3);
        assertThat(listed.items()).usingRecursiveComparison()
                .isEqualTo(inJson.list(ListOptions.none().withResourceVersion(listed.resourceVersion(), "Exact"))
                        .block(TIMEOUT).items());
        assertThat(inProtobuf.get("c1").block(TIMEOUT)).usingRecursiveComparison()
                .isEqualTo(inJson.get("c1").block(TIMEOUT));
        assertThat(streamingList(inProtobuf)).usingRecursiveComparison().isEqualTo(streamingList(inJson));
        assertThat(notFound(inProtobuf)).usingRecursiveComparison().isEqualTo(notFound(inJson));

        assertThat(protobufTypes).hasSize(4).containsOnly("GET application/vnd.kubernetes.protobuf",
                "GET application/vnd.kubernetes.protobuf;stream=watch");
        assertThat(protobufTypes).contains("GET application/vnd.kubernetes.protobuf;stream=watch");
        assertThat(jsonTypes.subList(writes, jsonTypes.size())).hasSize(4)
                .allSatisfy(type -> assertThat(type).startsWith("GET application/json"));
    }

    /** The initial events and the bookmark that ends them (so a ConfigMap with only a version and an annotation). */
    private static List<WatchEvent<V1ConfigMap>> streamingList(ResourceClient<V1ConfigMap> maps) {
        List<WatchEvent<V1ConfigMap>> events = maps.watch(WatchOptions.from(null).withInitialEvents()
                        .withTimeoutSeconds(60))
                .takeUntil(e -> e.type() == WatchEvent.Type.BOOKMARK && e.object().getMetadata().getAnnotations() != null
                        && e.object().getMetadata().getAnnotations().containsKey("k8s.io/initial-events-end"))
                .collectList().block(TIMEOUT);
        assertThat(events).hasSize(4);
        return events.stream().sorted((a, b) -> name(a).compareTo(name(b))).toList();
    }

    private static String name(WatchEvent<V1ConfigMap> event) {
        String name = event.object().getMetadata().getName();
        return name == null ? "~bookmark" : name;
    }

    private static Object notFound(ResourceClient<V1ConfigMap> maps) {
        Throwable error = maps.get("missing").materialize().block(TIMEOUT).getThrowable();
        assertThat(error).isInstanceOf(KubernetesApiException.NotFound.class);
        KubernetesApiException notFound = (KubernetesApiException) error;
        return List.of(notFound.getMessage(), notFound.code(), notFound.reason(), notFound.status().orElseThrow());
    }
}
