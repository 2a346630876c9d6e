package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.codec.KubernetesProtobuf;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.Encoding;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

/**
 * Content negotiation against a canned server answering with bytes captured from kube-apiserver
 * ({@code fixtures/protobuf}): what is asked for, which decoder the answer's {@code Content-Type} picks, the
 * fallback to JSON, errors in protobuf.
 */
class ProtobufNegotiationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String JSON = "application/json";
    private static final String LIST = "/api/v1/namespaces/proto-corpus/configmaps";
    /** The custom resource of {@code metadata-corpus.yaml}. */
    private static final ResourceType<DynamicObject> GADGETS =
            ResourceType.dynamic("proto.example.com", "v1", "gadgets", "Gadget", true);

    private final FakeApiServer server = new FakeApiServer();
    private final KubernetesClient client = KubernetesClient.create(config());

    /** Every fixture, read ahead: the canned server answers on an event loop, where BlockHound forbids reading files. */
    private static final Map<String, byte[]> FIXTURES = Stream.of("configmaplist", "configmap", "configmap-watch",
                    "namespace", "watch-expired", "status-404", "status-409", "status-422", "metadata-podlist",
                    "metadata-pod", "metadata-pod-watch", "metadata-gadgetlist", "metadata-gadget-watch")
            .flatMap(name -> Stream.of(name + ".json", name + ".pb"))
            .collect(Collectors.toMap(name -> name, name -> Fixtures.bytes("protobuf/" + name)));

    private static byte[] fixture(String path) {
        return FIXTURES.get(path.substring("protobuf/".length()));
    }

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    private ClientConfig config() {
        return ClientConfig.forServer(URI.create(server.url())).withNamespace("proto-corpus");
    }

    /** Answers as kube-apiserver does: protobuf when the Accept header offers it, else JSON. */
    private void serve(String jsonFixture, String protobufFixture, String protobufType) {
        server.handle((req, res) -> {
            String accept = req.requestHeaders().get("Accept", "");
            boolean protobuf = accept.contains(KubernetesProtobuf.MEDIA_TYPE);
            return res.header("Content-Type", protobuf ? protobufType : JSON)
                    .sendByteArray(Mono.just(fixture(protobuf ? protobufFixture : jsonFixture)));
        });
    }

    private ObjectList<V1ConfigMap> list(KubernetesClient on) {
        return on.resource(V1ConfigMap.class).inNamespace("proto-corpus").list(ListOptions.none()).block(TIMEOUT);
    }

    private List<String> accepts() {
        return server.requests().stream().map(r -> r.headers().get("Accept")).toList();
    }

    @Test
    void aBuiltInKindIsAskedForInProtobufAndItsListDecodesAsTheJsonOne() {
        serve("protobuf/configmaplist.json", "protobuf/configmaplist.pb", KubernetesProtobuf.MEDIA_TYPE);
        ObjectList<V1ConfigMap> protobuf = list(client);
        try (KubernetesClient json = KubernetesClient.create(config().withEncoding(Encoding.JSON))) {
            ObjectList<V1ConfigMap> expected = list(json);

            // byte arrays (binaryData) compared by content, not by identity as the models' equals does
            assertThat(protobuf.items()).hasSize(1).usingRecursiveComparison().isEqualTo(expected.items());
            assertThat(protobuf.resourceVersion()).isEqualTo(expected.resourceVersion()).isNotEmpty();
            assertThat(accepts()).containsExactly(ResourceClient.ACCEPT_PROTOBUF, JSON);
        }
    }

    @Test
    void aListIsInternedItemByItemInProtobufToo() {
        serve("protobuf/configmaplist.json", "protobuf/configmaplist.pb", KubernetesProtobuf.MEDIA_TYPE);
        V1ConfigMap held = new V1ConfigMap();

        ObjectList<V1ConfigMap> page = client.resource(V1ConfigMap.class).inNamespace("proto-corpus")
                .list(ListOptions.none(), item -> held).block(TIMEOUT);

        assertThat(page.items()).hasSize(1).allSatisfy(item -> assertThat(item).isSameAs(held));
    }

    @Test
    void aJsonAnswerToTheProtobufAcceptIsDecodedAsJson() {
        // a server without protobuf for the resource (an aggregated API) answers JSON to the same request
        server.handle((req, res) -> res.header("Content-Type", JSON)
                .sendByteArray(Mono.just(fixture("protobuf/configmaplist.json"))));

        ObjectList<V1ConfigMap> page = list(client);

        assertThat(page.items()).extracting(c -> c.getMetadata().getName()).containsExactly("settings");
        assertThat(accepts()).containsExactly(ResourceClient.ACCEPT_PROTOBUF);
    }

    @ParameterizedTest(name = "answered {0}")
    @ValueSource(ints = {406, 415})
    void aRefusalFallsBackToJsonOnceAndTheResourceStaysJson(int code) {
        server.handle((req, res) -> {
            if (req.requestHeaders().get("Accept", "").contains(KubernetesProtobuf.MEDIA_TYPE)) {
                return res.status(code).header("Content-Type", JSON).sendString(Mono.just(
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":" + code + "}"));
            }
            return res.header("Content-Type", JSON).sendByteArray(Mono.just(fixture(
                    req.uri().contains("watch=true") ? "protobuf/configmap-watch.json" : "protobuf/configmaplist.json")));
        });
        ResourceClient<V1ConfigMap> configMaps = client.resource(V1ConfigMap.class).inNamespace("proto-corpus");

        assertThat(configMaps.list(ListOptions.none()).block(TIMEOUT).items()).hasSize(1);
        assertThat(configMaps.list(ListOptions.none()).block(TIMEOUT).items()).hasSize(1);
        assertThat(configMaps.watch(WatchOptions.from("0")).collectList().block(TIMEOUT)).hasSize(1);

        assertThat(accepts()).containsExactly(ResourceClient.ACCEPT_PROTOBUF, JSON, JSON, JSON);
    }

    @Test
    void anUndecodableContentTypeFallsBackToJsonForThatResourceOnly() {
        server.handle((req, res) -> {
            if (req.requestHeaders().get("Accept", "").contains(KubernetesProtobuf.MEDIA_TYPE)
                    && req.uri().startsWith(LIST)) {
                return res.header("Content-Type", "application/cbor").sendByteArray(Mono.just(new byte[] {(byte) 0xa0}));
            }
            boolean protobuf = req.requestHeaders().get("Accept", "").contains(KubernetesProtobuf.MEDIA_TYPE);
            return res.header("Content-Type", protobuf ? KubernetesProtobuf.MEDIA_TYPE : JSON)
                    .sendByteArray(Mono.just(fixture(req.uri().startsWith(LIST) ? "protobuf/configmaplist.json"
                            : "protobuf/namespace.pb")));
        });

        assertThat(list(client).items()).hasSize(1);
        assertThat(list(client).items()).hasSize(1);
        V1Namespace namespace = client.resource(V1Namespace.class).get("proto-corpus").block(TIMEOUT);

        assertThat(namespace.getMetadata().getName()).isEqualTo("proto-corpus");
        assertThat(accepts()).containsExactly(ResourceClient.ACCEPT_PROTOBUF, JSON, JSON, ResourceClient.ACCEPT_PROTOBUF);
    }

    @Test
    void aJsonClientOrHandleNeverAsksForProtobuf() {
        serve("protobuf/configmaplist.json", "protobuf/configmaplist.pb", KubernetesProtobuf.MEDIA_TYPE);
        try (KubernetesClient json = KubernetesClient.create(config().withEncoding(Encoding.JSON))) {
            list(json);
            json.metadata(V1ConfigMap.class).inNamespace("proto-corpus").list(ListOptions.none())
                    .onErrorComplete().block(TIMEOUT);
            json.resource(V1ConfigMap.class).inNamespace("proto-corpus").get("settings").onErrorComplete().block(TIMEOUT);
            json.resource(V1ConfigMap.class).inNamespace("proto-corpus").watch(WatchOptions.from("0"))
                    .onErrorComplete().collectList().block(TIMEOUT);
        }
        client.resource(V1ConfigMap.class).inNamespace("proto-corpus").withEncoding(Encoding.JSON)
                .list(ListOptions.none()).block(TIMEOUT);

        assertThat(accepts()).hasSize(5).allSatisfy(accept -> assertThat(accept).doesNotContain("protobuf"));
    }

    @Test
    void customResourcesAreAskedForInJson() {
        server.handle((req, res) -> res.header("Content-Type", JSON).sendString(Mono.just(
                "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[]}")));

        client.resource(GADGETS).inNamespace("proto-corpus").list(ListOptions.none()).block(TIMEOUT);

        assertThat(accepts()).containsExactly(JSON);
        assertThat(DynamicObject.class).matches(type -> !KubernetesProtobuf.supports(type));
    }

    /**
     * Answers metadata as kube-apiserver does: in protobuf when the Accept header offers it first, else in JSON;
     * {@code name}'s list, its watch, or (a path ending in {@code /web-0}) the pod.
     */
    private void serveMetadata(String name) {
        server.handle((req, res) -> {
            boolean protobuf = req.requestHeaders().get("Accept", "").startsWith(KubernetesProtobuf.MEDIA_TYPE);
            boolean watch = req.uri().contains("watch=true");
            String fixture = "metadata-" + (watch ? name + "-watch" : req.uri().endsWith("/web-0") ? name : name + "list");
            return res.header("Content-Type", !protobuf ? JSON
                            : watch ? KubernetesProtobuf.WATCH_MEDIA_TYPE : KubernetesProtobuf.MEDIA_TYPE)
                    .sendByteArray(Mono.just(FIXTURES.get(fixture + (protobuf ? ".pb" : ".json"))));
        });
    }

    @Test
    void aMetadataOnlyHandleAsksForMetadataInProtobufAndDecodesAsTheJsonOne() {
        serveMetadata("pod");
        ResourceClient<PartialObjectMetadata> pods = client.metadata(V1Pod.class).inNamespace("proto-corpus");
        ResourceClient<PartialObjectMetadata> json = pods.withEncoding(Encoding.JSON);

        ObjectList<PartialObjectMetadata> list = pods.list(ListOptions.none()).block(TIMEOUT);
        PartialObjectMetadata pod = pods.get("web-0").block(TIMEOUT);
        List<WatchEvent<PartialObjectMetadata>> events = pods.watch(WatchOptions.from("0")).collectList().block(TIMEOUT);
        ObjectList<PartialObjectMetadata> jsonList = json.list(ListOptions.none()).block(TIMEOUT);

        assertThat(list.items()).hasSize(1).isEqualTo(jsonList.items());
        assertThat(list.items().get(0).getKind()).isEqualTo(PartialObjectMetadata.KIND);
        assertThat(list.resourceVersion()).isEqualTo(jsonList.resourceVersion()).isNotEmpty();
        assertThat(pod).isEqualTo(json.get("web-0").block(TIMEOUT));
        assertThat(events).hasSize(1).isEqualTo(json.watch(WatchOptions.from("0")).collectList().block(TIMEOUT));
        assertThat(accepts()).containsExactly(ResourceClient.ACCEPT_PROTOBUF_METADATA_LIST,
                ResourceClient.ACCEPT_PROTOBUF_METADATA, ResourceClient.ACCEPT_PROTOBUF_METADATA,
                ResourceClient.ACCEPT_METADATA_LIST, ResourceClient.ACCEPT_METADATA, ResourceClient.ACCEPT_METADATA);
    }

    @Test
    void aCustomResourceReadAsMetadataIsAskedForInProtobuf() {
        serveMetadata("gadget");
        ResourceClient<PartialObjectMetadata> gadgets = client.metadata(GADGETS).inNamespace("proto-corpus");

        ObjectList<PartialObjectMetadata> list = gadgets.list(ListOptions.none()).block(TIMEOUT);
        List<WatchEvent<PartialObjectMetadata>> events = gadgets.watch(WatchOptions.from("0")).collectList()
                .block(TIMEOUT);

        assertThat(list.items()).isEqualTo(gadgets.withEncoding(Encoding.JSON).list(ListOptions.none()).block(TIMEOUT)
                .items()).extracting(o -> o.getMetadata().getName()).containsExactly("sprocket");
        assertThat(events).isEqualTo(gadgets.withEncoding(Encoding.JSON).watch(WatchOptions.from("0")).collectList()
                .block(TIMEOUT));
        assertThat(accepts()).startsWith(ResourceClient.ACCEPT_PROTOBUF_METADATA_LIST,
                ResourceClient.ACCEPT_PROTOBUF_METADATA);
    }

    @ParameterizedTest(name = "answered {0}")
    @ValueSource(ints = {406, 415})
    void aRefusedMetadataRepresentationFallsBackToJsonOnceForTheMetadataOnly(int code) {
        server.handle((req, res) -> {
            String accept = req.requestHeaders().get("Accept", "");
            if (accept.contains("PartialObjectMetadata") && accept.startsWith(KubernetesProtobuf.MEDIA_TYPE)) {
                return res.status(code).header("Content-Type", JSON).sendString(Mono.just(
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":" + code + "}"));
            }
            boolean protobuf = accept.startsWith(KubernetesProtobuf.MEDIA_TYPE);
            String fixture = accept.contains("PartialObjectMetadata") ? "metadata-podlist.json"
                    : protobuf ? "configmaplist.pb" : "configmaplist.json";
            return res.header("Content-Type", protobuf ? KubernetesProtobuf.MEDIA_TYPE : JSON)
                    .sendByteArray(Mono.just(FIXTURES.get(fixture)));
        });
        ResourceClient<PartialObjectMetadata> pods = client.metadata(V1Pod.class).inNamespace("proto-corpus");

        assertThat(pods.list(ListOptions.none()).block(TIMEOUT).items()).hasSize(1);
        assertThat(pods.list(ListOptions.none()).block(TIMEOUT).items()).hasSize(1);
        assertThat(list(client).items()).hasSize(1);

        assertThat(accepts()).containsExactly(ResourceClient.ACCEPT_PROTOBUF_METADATA_LIST,
                ResourceClient.ACCEPT_METADATA_LIST, ResourceClient.ACCEPT_METADATA_LIST, ResourceClient.ACCEPT_PROTOBUF);
    }

    @Test
    void aGetInProtobufDecodesAsTheJsonOne() {
        serve("protobuf/configmap.json", "protobuf/configmap.pb", KubernetesProtobuf.MEDIA_TYPE);
        ResourceClient<V1ConfigMap> configMaps = client.resource(V1ConfigMap.class).inNamespace("proto-corpus");

        V1ConfigMap protobuf = configMaps.get("settings").block(TIMEOUT);
        V1ConfigMap json = configMaps.withEncoding(Encoding.JSON).get("settings").block(TIMEOUT);

        assertThat(protobuf).usingRecursiveComparison().isEqualTo(json);
        assertThat(protobuf.getKind()).isEqualTo("ConfigMap");
        assertThat(protobuf.getBinaryData()).isNotEmpty();
    }

    @Test
    void aWatchInProtobufGivesTheEventsOfTheJsonOne() {
        serve("protobuf/configmap-watch.json", "protobuf/configmap-watch.pb", KubernetesProtobuf.WATCH_MEDIA_TYPE);
        ResourceClient<V1ConfigMap> configMaps = client.resource(V1ConfigMap.class).inNamespace("proto-corpus");

        List<WatchEvent<V1ConfigMap>> protobuf = configMaps.watch(WatchOptions.from("0")).collectList().block(TIMEOUT);
        List<WatchEvent<V1ConfigMap>> json = configMaps.withEncoding(Encoding.JSON).watch(WatchOptions.from("0"))
                .collectList().block(TIMEOUT);

        assertThat(protobuf).hasSize(1).usingRecursiveComparison().isEqualTo(json);
        assertThat(accepts()).containsExactly(ResourceClient.ACCEPT_PROTOBUF, JSON);
    }

    @Test
    void aWatchAnsweredAsAnObjectInProtobufIsNotDecodableAndFallsBack() {
        // a protobuf object's type on a watch: no ;stream=watch, so not frames this client can read
        serve("protobuf/configmap-watch.json", "protobuf/configmap-watch.pb", KubernetesProtobuf.MEDIA_TYPE);

        List<WatchEvent<V1ConfigMap>> events = client.resource(V1ConfigMap.class).inNamespace("proto-corpus")
                .watch(WatchOptions.from("0")).collectList().block(TIMEOUT);

        assertThat(events).hasSize(1);
        assertThat(accepts()).containsExactly(ResourceClient.ACCEPT_PROTOBUF, JSON);
    }

    @Test
    void anErrorEventInProtobufIsTheGoneOfTheJsonOne() {
        serve("protobuf/watch-expired.json", "protobuf/watch-expired.pb", KubernetesProtobuf.WATCH_MEDIA_TYPE);
        ResourceClient<V1ConfigMap> configMaps = client.resource(V1ConfigMap.class).inNamespace("proto-corpus");

        Throwable protobuf = configMaps.watch(WatchOptions.from("2")).then().flux().materialize().blockFirst(TIMEOUT)
                .getThrowable();
        Throwable json = configMaps.withEncoding(Encoding.JSON).watch(WatchOptions.from("2")).then().flux()
                .materialize().blockFirst(TIMEOUT).getThrowable();

        assertThat(protobuf).isInstanceOf(KubernetesApiException.Gone.class);
        assertSameError((KubernetesApiException) protobuf, (KubernetesApiException) json);
        assertThat(((KubernetesApiException) protobuf).reason()).isEqualTo("Expired");
    }

    static Stream<Arguments> statuses() {
        return Stream.of(Arguments.of(404, KubernetesApiException.NotFound.class),
                Arguments.of(409, KubernetesApiException.Conflict.class),
                Arguments.of(422, KubernetesApiException.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statuses")
    void aStatusInProtobufMapsToTheExceptionOfTheJsonOne(int code, Class<?> type) {
        server.handle((req, res) -> {
            boolean protobuf = req.requestHeaders().get("Accept", "").contains(KubernetesProtobuf.MEDIA_TYPE);
            return res.status(code).header("Content-Type", protobuf ? KubernetesProtobuf.MEDIA_TYPE : JSON)
                    .sendByteArray(Mono.just(fixture("protobuf/status-" + code + (protobuf ? ".pb" : ".json"))));
        });
        ResourceClient<V1ConfigMap> configMaps = client.resource(V1ConfigMap.class).inNamespace("proto-corpus");

        Throwable protobuf = configMaps.get("settings").materialize().block(TIMEOUT).getThrowable();
        Throwable json = configMaps.withEncoding(Encoding.JSON).get("settings").materialize().block(TIMEOUT)
                .getThrowable();

        assertThat(protobuf).isExactlyInstanceOf(type);
        assertSameError((KubernetesApiException) protobuf, (KubernetesApiException) json);
        assertThat(accepts()).containsExactly(ResourceClient.ACCEPT_PROTOBUF, JSON);
    }

    private static void assertSameError(KubernetesApiException protobuf, KubernetesApiException json) {
        assertThat(protobuf).isExactlyInstanceOf(json.getClass()).hasMessage(json.getMessage());
        assertThat(protobuf.code()).isEqualTo(json.code());
        assertThat(protobuf.reason()).isEqualTo(json.reason()).isNotNull();
        assertThat(protobuf.status()).isEqualTo(json.status());
    }

    @Test
    void aTruncatedProtobufListIsADecodeExceptionNamingTheOffset() {
        byte[] list = fixture("protobuf/configmaplist.pb");
        server.handle((req, res) -> res.header("Content-Type", KubernetesProtobuf.MEDIA_TYPE)
                .sendByteArray(Mono.just(Arrays.copyOf(list, list.length - 20))));

        assertThatThrownBy(() -> list(client))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("GET " + LIST)
                .hasMessageContaining("(at byte ");
    }

    @Test
    void aWatchFrameOfAWrongLengthIsADecodeExceptionNamingTheFrame() {
        byte[] watch = fixture("protobuf/configmap-watch.pb");
        byte[] broken = Arrays.copyOf(watch, watch.length);
        broken[0] = 0x7f; // the first frame's length, now far beyond the stream
        server.handle((req, res) -> res.header("Content-Type", KubernetesProtobuf.WATCH_MEDIA_TYPE)
                .sendByteArray(Mono.just(broken)));

        assertThatThrownBy(() -> client.resource(V1ConfigMap.class).inNamespace("proto-corpus")
                .watch(WatchOptions.from("0")).collectList().block(TIMEOUT))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("frame 0")
                .hasMessageContaining("at byte ");
    }
}
