package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveinformer.codec.KubernetesJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The encoder against kube-apiserver's own bytes: every object, list and watch captured from it in JSON and in
 * protobuf ({@code reactive-informer}'s {@code fixtures/protobuf}, by its {@code capture.sh}) transcodes from
 * the JSON to exactly the protobuf bytes.
 */
class ProtobufEncoderTest {

    static final Path FIXTURES = Path.of("../reactive-informer/src/test/resources/fixtures/protobuf");

    private final ObjectMapper mapper = KubernetesJson.defaults().mapper();
    private final ProtobufEncoder encoder = new ProtobufEncoder(ProtobufSchema.get(), mapper);

    static List<String> objectFixtures() throws IOException {
        try (Stream<Path> files = Files.list(FIXTURES)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pb"))
                    .map(n -> n.substring(0, n.length() - 3)).filter(n -> !n.endsWith("-watch")).sorted().toList();
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
            if (!java.util.Arrays.equals(actual, expected)) {
                different.add(name + ": first difference at byte " + java.util.Arrays.mismatch(actual, expected)
                        + " of " + expected.length + "\n  expected " + HexFormat.of().formatHex(expected)
                        + "\n  actual   " + HexFormat.of().formatHex(actual));
            }
        }
        assertThat(different).isEmpty();
    }

    @Test
    void theWatchFixtureTranscodesToKubeApiserversFrames() throws IOException {
        ByteArrayOutputStream frames = new ByteArrayOutputStream();
        for (String line : Files.readAllLines(FIXTURES.resolve("configmap-watch.json"))) {
            JsonNode event = mapper.readTree(line);
            frames.writeBytes(ProtobufEncoder.watchFrame(event.get("type").asString(),
                    encoder.envelope(event.get("object"))));
        }
        assertThat(HexFormat.of().formatHex(frames.toByteArray()))
                .isEqualTo(HexFormat.of().formatHex(Files.readAllBytes(FIXTURES.resolve("configmap-watch.pb"))));
    }
}
