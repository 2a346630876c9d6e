package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1Secret;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.codec.KubernetesJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The encoder against kube-apiserver's own bytes: every object, list and watch captured from it in JSON and in
 * protobuf ({@code reactive-informer}'s {@code fixtures/protobuf}, by its {@code capture.sh}) transcodes from
 * the JSON to exactly the protobuf bytes, and decodes back (with the same schema) to exactly the JSON.
 */
class ProtobufEncoderTest {

    static final Path FIXTURES = Path.of("../reactive-informer/src/test/resources/fixtures/protobuf");

    private final ObjectMapper mapper = KubernetesJson.defaults().mapper();
    private final ProtobufEncoder encoder = new ProtobufEncoder(ProtobufSchema.get(), mapper);
    private final ProtobufToJson decoder = new ProtobufToJson(ProtobufSchema.get(), mapper);

    static List<String> objectFixtures() throws IOException {
        try (Stream<Path> files = Files.list(FIXTURES)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pb"))
                    .map(n -> n.substring(0, n.length() - 3)).filter(n -> !n.contains("watch")).sorted().toList();
        }
    }

    @Test
    void everyObjectAndListFixtureTranscodesToKubeApiserversBytes() throws IOException {
        List<String> names = objectFixtures();
        assertThat(names).hasSizeGreaterThanOrEqualTo(13);
        List<String> different = new ArrayList<>();
        for (String name : names) {
            JsonNode json = mapper.readTree(Files.readAllBytes(FIXTURES.resolve(name + ".json")));
            byte[] expected = Files.readAllBytes(FIXTURES.resolve(name + ".pb"));
            byte[] actual = encoder.envelope(json);
            if (!Arrays.equals(actual, expected)) {
                different.add(name + ": first difference at byte " + Arrays.mismatch(actual, expected)
                        + " of " + expected.length + "\n  expected " + HexFormat.of().formatHex(expected)
                        + "\n  actual   " + HexFormat.of().formatHex(actual));
            }
        }
        assertThat(different).isEmpty();
    }

    /**
     * The watches and streaming lists, of objects and of metadata ({@code capture-metadata.sh}). A streaming
     * list's last bookmark carries the server's resourceVersion at the time, which moved on between the JSON
     * and the protobuf captures: the JSON is given the protobuf's, so that the inputs are the same.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"configmap-watch", "metadata-pod-watch", "metadata-gadget-watch", "metadata-pod-watchlist",
            "metadata-gadget-watchlist"})
    void theWatchFixturesTranscodeToKubeApiserversFrames(String name) throws IOException {
        byte[] expected = Files.readAllBytes(FIXTURES.resolve(name + ".pb"));
        List<ObjectNode> captured = decoder.watchFrames(expected);
        ByteArrayOutputStream frames = new ByteArrayOutputStream();
        List<String> lines = Files.readAllLines(FIXTURES.resolve(name + ".json"));
        assertThat(lines).hasSameSizeAs(captured);
        for (int i = 0; i < lines.size(); i++) {
            JsonNode event = mapper.readTree(lines.get(i));
            if (event.get("type").asString().equals("BOOKMARK")) {
                ((ObjectNode) event.get("object").get("metadata")).set("resourceVersion",
                        captured.get(i).get("object").get("metadata").get("resourceVersion"));
            }
            frames.writeBytes(ProtobufEncoder.watchFrame(event.get("type").asString(),
                    encoder.envelope(event.get("object"))));
        }
        assertThat(HexFormat.of().formatHex(frames.toByteArray())).isEqualTo(HexFormat.of().formatHex(expected));
    }

    @Test
    void everyFixtureDecodesBackToKubeApiserversJson() throws IOException {
        for (String name : objectFixtures()) {
            JsonNode json = mapper.readTree(Files.readAllBytes(FIXTURES.resolve(name + ".json")));
            assertThat(decoder.envelope(Files.readAllBytes(FIXTURES.resolve(name + ".pb")))).as(name).isEqualTo(json);
        }
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(FIXTURES.resolve("configmap-watch.json"))) {
            lines.add(mapper.readTree(line));
        }
        assertThat(decoder.watchFrames(Files.readAllBytes(FIXTURES.resolve("configmap-watch.pb")))).isEqualTo(lines);
    }

    /**
     * The kit's own objects (as its defaults leave them, which is not always all Go would write) survive a round
     * trip: every value they hold decodes back, and the decoded tree encodes to the same bytes.
     */
    @Test
    void theKitsOwnObjectsRoundTrip() {
        ClusterState state = ClusterState.create();
        state.create(new V1Namespace().metadata(new V1ObjectMeta().name("apps")));
        state.create(new V1Pod().metadata(new V1ObjectMeta().name("p").namespace("apps").putLabelsItem("app", "web"))
                .spec(new V1PodSpec().addContainersItem(new V1Container().name("c").image("nginx")
                        .resources(new V1ResourceRequirements().putRequestsItem("cpu", Quantity.fromString("100m"))))));
        state.create(new V1Deployment().metadata(new V1ObjectMeta().name("d").namespace("apps"))
                .spec(new V1DeploymentSpec().selector(new V1LabelSelector().putMatchLabelsItem("app", "web"))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().putLabelsItem("app", "web"))
                                .spec(new V1PodSpec().addContainersItem(new V1Container().name("c").image("nginx"))))));
        state.create(new V1Secret().metadata(new V1ObjectMeta().name("s").namespace("apps"))
                .putStringDataItem("k", "v"));
        state.create(new V1ConfigMap().metadata(new V1ObjectMeta().name("c").namespace("apps")).putDataItem("k", "v"));
        int objects = 0;
        for (ResourceType<?> type : state.resources()) {
            for (ObjectNode object : state.trees(type)) {
                if (!encoder.covers(type.apiVersion(), type.kind())) {
                    continue;
                }
                byte[] bytes = encoder.envelope(type.apiVersion(), type.kind(), object);
                ObjectNode decoded = decoder.envelope(bytes);
                ProtobufToJson.assertContains(decoded, object, type.kind());
                assertThat(encoder.envelope(decoded)).as(type.kind()).isEqualTo(bytes);
                objects++;
            }
        }
        assertThat(objects).isGreaterThanOrEqualTo(5);
    }
}
