package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * For every built-in kind the generated decoders cover, the protobuf decode of an object equals its JSON decode,
 * over objects Kubernetes' own Go code made: {@code fixtures/protobuf/equivalence.jsonl}, random objects of every
 * kind of client-go's scheme filled by Kubernetes' fuzzer and encoded by apimachinery's serializers (written by
 * {@code src/test/go/equivalence}, see its {@code generate.sh}). No encoder of this library is involved.
 *
 * <p>The fixture's kinds without a model class are not decoded by the library and not compared: API versions
 * the models no longer have ({@code extensions/v1beta1}, {@code apps/v1beta1} and {@code v1beta2}, the betas
 * of {@code rbac}, {@code storage}, {@code flowcontrol} ...) and the option kinds ({@code PodLogOptions},
 * {@code ListOptions} ...).
 */
class ProtobufJsonEquivalenceTest {

    private static final String MODELS = "io.kubernetes.client.openapi.models.";

    /**
     * Models the decoders register as top-level because they have {@code apiVersion} and {@code kind}, but that are
     * references to objects, never an object: each is decoded within the objects of the fixture that hold one.
     */
    private static final Set<String> REFERENCES = Set.of("V1BoundObjectReference", "V1CrossVersionObjectReference",
            "V2CrossVersionObjectReference", "V1ObjectReference", "V1OwnerReference", "V1ParamKind",
            "V1alpha1ParamKind", "V1beta1ParamKind");

    private final KubernetesJson json = KubernetesJson.defaults();
    private final KubernetesProtobuf protobuf = KubernetesProtobuf.of(json);

    /** One object of the fixture: its Go package (under {@code k8s.io/}), kind and both encodings. */
    record Sample(String goPackage, String kind, int index, byte[] json, byte[] protobuf) {
        String name() {
            return goPackage + " " + kind;
        }
    }

    static List<Sample> samples() {
        JsonMapper mapper = JsonMapper.builder().build();
        String text = new String(Fixtures.bytes("protobuf/equivalence.jsonl"), StandardCharsets.UTF_8);
        return text.lines().map(mapper::readTree).map(line -> new Sample(line.get("package").asString(),
                line.get("kind").asString(), line.get("index").asInt(),
                line.get("json").asString().getBytes(StandardCharsets.UTF_8),
                Base64.getDecoder().decode(line.get("protobuf").asString()))).toList();
    }

    /** The fixture's kinds that have a model class, by name, with the model class and their objects. */
    static Stream<Arguments> kindsWithModels() {
        Map<String, List<Sample>> byKind = new TreeMap<>();
        samples().forEach(s -> byKind.computeIfAbsent(s.name(), k -> new ArrayList<>()).add(s));
        return byKind.values().stream().flatMap(samples -> model(samples.get(0)).stream()
                .map(model -> Arguments.of(samples.get(0).name(), model, samples)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kindsWithModels")
    void decodesEveryObjectAsTheJsonPathDoes(String kind, Class<?> model, List<Sample> samples) {
        for (Sample sample : samples) {
            Object fromJson = json.decode(sample.json(), model);
            Object fromProtobuf = protobuf.decode(sample.protobuf(), 0, sample.protobuf().length, model);

            // field by field first, for a readable difference; byte[] values compare by content there only
            assertThat(fromProtobuf).as("%s #%d", kind, sample.index()).usingRecursiveComparison()
                    .withStrictTypeChecking().isEqualTo(fromJson);
            if (!holdsBytes(model, new HashSet<>())) {
                assertThat(fromProtobuf).as("%s #%d", kind, sample.index()).isEqualTo(fromJson);
            }
        }
    }

    @Test
    void coversEveryKindTheDecodersCover() throws IOException, URISyntaxException {
        List<Sample> samples = samples();
        Set<Class<?>> withFixture = samples.stream().flatMap(s -> model(s).stream()).collect(Collectors.toSet());
        Set<String> withoutFixture = new TreeSet<>();
        Path models = Path.of(V1Pod.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (JarFile jar = new JarFile(models.toFile())) {
            jar.stream().map(e -> e.getName()).filter(n -> n.startsWith(MODELS.replace('.', '/')) && n.endsWith(".class"))
                    .map(n -> load(n.substring(0, n.length() - ".class".length()).replace('/', '.')))
                    .flatMap(Optional::stream).filter(KubernetesProtobuf::supports)
                    .filter(c -> !withFixture.contains(c)).forEach(c -> withoutFixture.add(c.getSimpleName()));
        }

        // every model the generator maps to a top-level kind or list has objects in the fixture
        assertThat(withoutFixture).as("models with a protobuf decoder but no objects in equivalence.jsonl")
                .containsExactlyInAnyOrderElementsOf(REFERENCES);
        assertThat(withFixture).as("kinds of the fixture with a model but no protobuf decoder")
                .allMatch(KubernetesProtobuf::supports);
        assertThat(samples.stream().collect(Collectors.groupingBy(Sample::name, Collectors.counting())).values())
                .as("objects per kind").containsOnly(3L);
    }

    /**
     * The model class the generator maps a Go package's kind to: the proto package is the Go package's last two
     * elements ({@code core.v1}); {@code CoreV1Event} before {@code V1Event}, as the generator tries them.
     */
    static Optional<Class<?>> model(Sample sample) {
        String[] parts = sample.goPackage().split("/");
        String version = capitalize(parts[parts.length - 1]);
        String group = capitalize(parts[parts.length - 2]);
        return load(MODELS + group + version + sample.kind()).or(() -> load(MODELS + version + sample.kind()));
    }

    private static Optional<Class<?>> load(String name) {
        try {
            return Optional.of(Class.forName(name, false, ProtobufJsonEquivalenceTest.class.getClassLoader()));
        } catch (ClassNotFoundException | LinkageError absent) {
            return Optional.empty();
        }
    }

    private static String capitalize(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    /** Whether a {@code model} somewhere holds a {@code byte[]}, whose {@code equals} is identity. */
    private static boolean holdsBytes(Type type, Set<Type> seen) {
        if (type == byte[].class) {
            return true;
        }
        if (type instanceof ParameterizedType parameterized) {
            for (Type argument : parameterized.getActualTypeArguments()) {
                if (holdsBytes(argument, seen)) {
                    return true;
                }
            }
            return false;
        }
        if (!(type instanceof Class<?> model) || !model.getName().startsWith(MODELS) || !seen.add(type)) {
            return false;
        }
        for (Field field : model.getDeclaredFields()) {
            if (holdsBytes(field.getGenericType(), seen)) {
                return true;
            }
        }
        return false;
    }
}
