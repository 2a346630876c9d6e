package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.netty.handler.codec.http.HttpMethod;
import io.reactiveinformer.api.ResourceType;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The simulated server in protobuf, over raw HTTP: negotiation as kube-apiserver answers it (checked with curl
 * against kube-apiserver v1.36.3), objects, lists, watches, metadata-only, error Statuses, custom resources,
 * the switch that turns protobuf off, and the stream faults on a protobuf watch.
 */
class ProtobufServingTest {

    private static final Duration T = Duration.ofSeconds(10);
    private static final String PB = "application/vnd.kubernetes.protobuf";
    private static final String PB_WATCH = PB + ";stream=watch";
    private static final String CLIENT_GO = PB + ", application/json";
    private static final String MAPS = "/api/v1/namespaces/shop/configmaps";
    private static final ResourceType<?> WIDGETS = ResourceType.dynamic("example.com", "v1", "widgets", "Widget", true);

    private SimulatedApiServer server;
    private ProtobufToJson decoder;

    @BeforeEach
    void start() {
        server = SimulatedApiServer.start(ClusterState.builder().build());
        server.state().register(WIDGETS);
        decoder = new ProtobufToJson(ProtobufSchema.get(), server.state().json().mapper());
        for (String name : new String[] {"a", "b"}) {
            server.state().create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("shop").name(name)
                    .labels(Map.of("app", name))).data(Map.of("k", name)));
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private RawHttp.Result request(String method, String pathAndQuery, String accept, String contentType,
                                   byte[] body) {
        HttpClient http = HttpClient.create(ConnectionProvider.newConnection()).baseUrl(server.url().toString())
                .headers(h -> {
                    h.set("Accept", accept);
                    if (contentType != null) {
                        h.set("Content-Type", contentType);
                    }
                });
        HttpClient.RequestSender sender = http.request(HttpMethod.valueOf(method)).uri(pathAndQuery);
        return RawHttp.exchange(server, body == null ? sender : sender.send((req, out) -> out.sendByteArray(Mono.just(body))))
                .block(T);
    }

    private RawHttp.Result get(String pathAndQuery, String accept) {
        return request("GET", pathAndQuery, accept, null, null);
    }

    /** The content type of a watch that does not end: read from its headers. */
    private String watchContentType(String pathAndQuery, String accept) {
        return HttpClient.create(ConnectionProvider.newConnection()).baseUrl(server.url().toString())
                .headers(h -> h.set("Accept", accept)).get().uri(pathAndQuery).response()
                .map(res -> res.status().code() + " " + res.responseHeaders().get("Content-Type")).block(T);
    }

    /** The bytes of a protobuf watch that does not end, until {@code enough} says there are enough. */
    private byte[] watchBytes(String pathAndQuery, Predicate<byte[]> enough) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        HttpClient.create(ConnectionProvider.newConnection()).baseUrl(server.url().toString())
                .headers(h -> h.set("Accept", CLIENT_GO)).get().uri(pathAndQuery).responseContent().asByteArray()
                .doOnNext(out::writeBytes).takeUntil(b -> enough.test(out.toByteArray())).then().block(T);
        return out.toByteArray();
    }

    /** Whether {@code bytes} hold {@code n} whole frames. */
    private static Predicate<byte[]> frames(int n) {
        return bytes -> {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            for (int i = 0; i < n; i++) {
                if (in.remaining() < 4 || in.remaining() < 4 + in.getInt(in.position())) {
                    return false;
                }
                in.position(in.position() + 4 + in.getInt(in.position()));
            }
            return true;
        };
    }

    private JsonNode json(RawHttp.Result result) {
        return server.state().json().mapper().readTree(result.body());
    }

    @Test
    void builtInObjectsAndListsAnswerInProtobufWhenItComesFirst() {
        RawHttp.Result object = get(MAPS + "/a", CLIENT_GO);
        assertThat(object.status()).isEqualTo(200);
        assertThat(object.contentType()).isEqualTo(PB);
        assertThat(new String(object.body(), 0, 4, StandardCharsets.ISO_8859_1)).isEqualTo("k8s\0");
        ObjectNode decoded = decoder.envelope(object.body());
        JsonNode inJson = json(get(MAPS + "/a", "application/json"));
        ProtobufToJson.assertContains(decoded, inJson, "a");

        RawHttp.Result list = get(MAPS, CLIENT_GO);
        assertThat(list.contentType()).isEqualTo(PB);
        ObjectNode decodedList = decoder.envelope(list.body());
        assertThat(decodedList.get("kind").asString()).isEqualTo("ConfigMapList");
        JsonNode listInJson = json(get(MAPS, "application/json"));
        assertThat(decodedList.get("metadata").get("resourceVersion"))
                .isEqualTo(listInJson.get("metadata").get("resourceVersion"));
        // the kit's JSON items carry their kind, which kube-apiserver's do not, nor does protobuf
        listInJson.get("items").forEach(item -> ((ObjectNode) item).remove(List.of("kind", "apiVersion")));
        ProtobufToJson.assertContains(decodedList.get("items"), listInJson.get("items"), "items");

        // JSON first, or a wildcard: JSON, as before
        assertThat(get(MAPS + "/a", "application/json, " + PB).contentType()).isEqualTo("application/json");
        assertThat(get(MAPS + "/a", "*/*").contentType()).isEqualTo("application/json");
    }

    @Test
    void aPodReadInProtobufDecodesToItsJson() {
        server.state().create(new V1Pod().metadata(new V1ObjectMeta().namespace("shop").name("p"))
                .spec(new V1PodSpec().addContainersItem(new V1Container().name("c").image("nginx"))));
        RawHttp.Result pod = get("/api/v1/namespaces/shop/pods/p", PB);
        assertThat(pod.contentType()).isEqualTo(PB);
        ObjectNode decoded = decoder.envelope(pod.body());
        JsonNode inJson = json(get("/api/v1/namespaces/shop/pods/p", "application/json"));
        assertThat(decoded.get("spec").get("containers").get(0).get("image").asString()).isEqualTo("nginx");
        assertThat(decoded.get("metadata").get("uid")).isEqualTo(inJson.get("metadata").get("uid"));
        assertThat(decoded.get("status").get("phase").asString()).isEqualTo("Pending");
    }

    @Test
    void metadataOnlyInProtobuf() {
        RawHttp.Result list = get(MAPS, PB + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
        assertThat(list.contentType()).isEqualTo(PB);
        ObjectNode decoded = decoder.envelope(list.body());
        assertThat(decoded.get("kind").asString()).isEqualTo("PartialObjectMetadataList");
        assertThat(decoded.get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
        assertThat(decoded.get("items").get(1).get("metadata").get("name").asString()).isEqualTo("b");
        assertThat(decoded.get("items").get(1).has("data")).isFalse();
        // as kube-apiserver, for a custom resource too: PartialObjectMetadata has a message
        assertThat(get("/apis/example.com/v1/namespaces/shop/widgets",
                PB + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1").contentType()).isEqualTo(PB);
    }

    /** kube-apiserver v1.36.3's bytes for GET /api/v1/namespaces/default/pods/nope in protobuf. */
    @Test
    void aNotFoundIsAProtobufStatusWithKubeApiserversBytes() {
        RawHttp.Result missing = get("/api/v1/namespaces/default/pods/nope", CLIENT_GO);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.contentType()).isEqualTo(PB);
        assertThat(HexFormat.of().formatHex(missing.body())).isEqualTo("6b3873000a0c0a02763112065374617475731249"
                + "0a060a0012001a0012074661696c7572651a15706f647320226e6f706522206e6f7420666f756e6422084e6f74466f75"
                + "6e642a120a046e6f706512001a04706f6473280032003094031a002200");
        // an Accept that puts JSON first gets JSON errors
        assertThat(get("/api/v1/namespaces/default/pods/nope", "application/json, " + PB).contentType())
                .isEqualTo("application/json");
    }

    @Test
    void customResourcesAnswerJsonOr406AsKubeApiserver() {
        String widgets = "/apis/example.com/v1/namespaces/shop/widgets";
        assertThat(get(widgets, CLIENT_GO).contentType()).isEqualTo("application/json");
        assertThat(watchContentType(widgets + "?watch=true", CLIENT_GO)).isEqualTo("200 application/json");
        assertThat(watchContentType(MAPS + "?watch=true", CLIENT_GO)).isEqualTo("200 " + PB_WATCH);
        RawHttp.Result only = get(widgets, PB);
        assertThat(only.status()).isEqualTo(406);
        // the Status itself is in protobuf, as kube-apiserver writes it
        assertThat(only.contentType()).isEqualTo(PB);
        ObjectNode status = decoder.envelope(only.body());
        assertThat(status.get("reason").asString()).isEqualTo("NotAcceptable");
        assertThat(status.get("code").asInt()).isEqualTo(406);
        assertThat(get(widgets + "?watch=true", PB_WATCH).status()).isEqualTo(406);
    }

    @Test
    void protobufTurnedOffAnswersJsonOr406() {
        server.protobuf(false);
        assertThat(get(MAPS + "/a", CLIENT_GO).contentType()).isEqualTo("application/json");
        RawHttp.Result only = get(MAPS + "/a", PB);
        assertThat(only.status()).isEqualTo(406);
        assertThat(only.contentType()).isEqualTo("application/json");
        server.protobuf(true);
        assertThat(get(MAPS + "/a", CLIENT_GO).contentType()).isEqualTo(PB);
    }

    @Test
    void protobufRequestBodiesAreUnsupported() {
        byte[] body = new ProtobufEncoder(ProtobufSchema.get(), server.state().json().mapper())
                .envelope(json(get(MAPS + "/a", "application/json")));
        RawHttp.Result create = request("POST", MAPS, CLIENT_GO, PB, body);
        assertThat(create.status()).isEqualTo(415);
        assertThat(decoder.envelope(create.body()).get("reason").asString()).isEqualTo("UnsupportedMediaType");
    }

    @Test
    void aStreamingListWatchInProtobufEndsItsInitialEventsWithKubeApiserversBookmark() {
        server.faults().once(RequestInfo.watches(), Fault.closeAfterEvents(3));
        RawHttp.Result watch = get(MAPS + "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                + "&allowWatchBookmarks=true", CLIENT_GO);
        assertThat(watch.contentType()).isEqualTo(PB_WATCH);
        List<ObjectNode> events = decoder.watchFrames(watch.body());
        assertThat(events).extracting(e -> e.get("type").asString()).containsExactly("ADDED", "ADDED", "BOOKMARK");
        assertThat(events.get(0).get("object").get("metadata").get("name").asString()).isEqualTo("a");
        // the bookmark's object as kube-apiserver v1.36.3 encodes it: an empty ConfigMap of metadata whose
        // by-value fields are all written, the resourceVersion and the annotation
        String rv = Long.toString(server.state().resourceVersion());
        String annotation = hex("k8s.io/initial-events-end");
        String metadata = "0a0012001a0022002a0032" + String.format("%02x", rv.length()) + hex(rv) + "38004200"
                + "6221" + "0a19" + annotation + "1204" + hex("true");
        String configMap = "0a" + String.format("%02x", metadata.length() / 2) + metadata;
        String expected = "6b387300" + "0a0f0a0276311209" + hex("ConfigMap") + "12"
                + String.format("%02x", configMap.length() / 2) + configMap + "1a002200";
        assertThat(HexFormat.of().formatHex(lastFrameObject(watch.body()))).isEqualTo(expected);
    }

    @Test
    void streamFaultsKeepTheirMeaningOnAProtobufWatch() {
        String watch = MAPS + "?watch=true&resourceVersion=0";
        server.faults().once(RequestInfo.watches(), Fault.expiredWatch());
        List<ObjectNode> expired = decoder.watchFrames(get(watch, CLIENT_GO).body());
        assertThat(expired).hasSize(1);
        assertThat(expired.get(0).get("type").asString()).isEqualTo("ERROR");
        assertThat(expired.get(0).get("object").get("code").asInt()).isEqualTo(410);
        assertThat(expired.get(0).get("object").get("reason").asString()).isEqualTo("Expired");

        server.faults().once(RequestInfo.watches(), Fault.unknownEventType(1));
        List<ObjectNode> surprise = decoder.watchFrames(watchBytes(watch, frames(3)));
        assertThat(surprise).extracting(e -> e.get("type").asString()).containsExactly("ADDED", "SURPRISE", "ADDED");

        server.faults().once(RequestInfo.watches(), Fault.objectWithoutMetadata(0));
        List<ObjectNode> bare = decoder.watchFrames(watchBytes(watch, frames(1)));
        // protobuf has no object without metadata: Go writes an empty one
        assertThat(bare.get(0).get("object").get("metadata").has("name")).isFalse();
        assertThat(bare.get(0).get("object").get("kind").asString()).isEqualTo("ConfigMap");

        server.faults().once(RequestInfo.watches(), Fault.truncatedFrame(1));
        RawHttp.Result truncated = get(watch, CLIENT_GO);
        assertThat(truncated.error()).isNull(); // ended cleanly, inside the second frame
        ByteBuffer in = ByteBuffer.wrap(truncated.body());
        in.position(4 + in.getInt(0));
        assertThat(in.remaining()).isGreaterThan(4).isLessThan(4 + in.getInt(in.position()));

        server.faults().once(RequestInfo.watches(), Fault.wrongLength(0));
        // enough for the two frames the first two events are, whatever the first one's prefix says
        ByteBuffer wrong = ByteBuffer.wrap(watchBytes(watch, bytes -> bytes.length >= 8
                && bytes.length >= 4 + ByteBuffer.wrap(bytes).getInt(0) - 1 + 4
                && bytes.length == 4 + ByteBuffer.wrap(bytes).getInt(0) - 1 + 4
                        + ByteBuffer.wrap(bytes).getInt(4 + ByteBuffer.wrap(bytes).getInt(0) - 1)));
        int claimed = wrong.getInt(0);
        // the frame is one byte shorter than its prefix says: the next prefix follows it a byte early
        int next = 4 + claimed - 1;
        assertThat(next + 4 + wrong.getInt(next)).isEqualTo(wrong.limit());
        assertThat(ProtobufToJson.fields(Arrays.copyOfRange(wrong.array(), 4, next)).get(1).get(0))
                .isEqualTo("ADDED".getBytes(StandardCharsets.UTF_8));

        Fault garbage = Fault.garbage(1, 16, 7);
        server.faults().once(RequestInfo.watches(), garbage);
        byte[] withGarbage = watchBytes(watch, bytes -> frames(1).test(bytes)
                && bytes.length >= 4 + ByteBuffer.wrap(bytes).getInt(0) + 16);
        int afterFirst = 4 + ByteBuffer.wrap(withGarbage).getInt(0);
        assertThat(Arrays.copyOfRange(withGarbage, afterFirst, afterFirst + 16))
                .isEqualTo(((Fault.Insert) garbage).bytes());
    }

    /** The enveloped object of the last frame of a protobuf watch stream. */
    private static byte[] lastFrameObject(byte[] stream) {
        ByteBuffer in = ByteBuffer.wrap(stream);
        byte[] frame = null;
        while (in.hasRemaining()) {
            frame = new byte[in.getInt()];
            in.get(frame);
        }
        Map<Integer, List<Object>> event = ProtobufToJson.fields(frame);
        return (byte[]) ProtobufToJson.fields((byte[]) event.get(2).get(0)).get(1).get(0);
    }

    private static String hex(String s) {
        return HexFormat.of().formatHex(s.getBytes(StandardCharsets.UTF_8));
    }
}
