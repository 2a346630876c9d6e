package io.reactiveinformer.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The built-in kind table ({@code built-in-kinds.txt} next to {@link ResourceType}) is derived from the
 * models jar: every {@code create[Namespaced]<Kind>} call of an {@code *Api} class names the kind, its
 * request path the group, version, scope and plural, and the model class the Java type. Run with
 * {@code -Dkinds.update=true} to regenerate it after a models upgrade (CONTRIBUTING.md).
 */
class BuiltInKindsTest {

    private static final String MODELS = "io/kubernetes/client/openapi/models/";
    private static final Pattern API = Pattern.compile("^(\\w+?)(V\\d+(?:alpha\\d+|beta\\d+)?)Api\\.class$");
    private static final Pattern CREATE = Pattern.compile("^create(Namespaced)?([A-Z]\\w*)Call$");
    private static final Pattern COLLECTION =
            Pattern.compile("^/(?:api|apis/([^/]+))/(v[^/]+)/(namespaces/\\{namespace\\}/)?([a-z0-9]+)$");
    private static final Path TABLE = Path.of("src/main/resources/io/reactiveinformer/api/built-in-kinds.txt");

    record Derived(String model, String group, String version, String kind, boolean namespaced, String plural) {
    }

    private static List<Derived> derived;
    private static Set<String> modelClasses;

    @BeforeAll
    static void readTheModelsJar() throws Exception {
        Path jar = Path.of(V1Pod.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        derived = new ArrayList<>();
        try (FileSystem fs = FileSystems.newFileSystem(jar); Stream<Path> models = Files.list(fs.getPath(MODELS));
             Stream<Path> apis = Files.list(fs.getPath("io/kubernetes/client/openapi/apis"))) {
            modelClasses = models.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".class") && !n.contains("$"))
                    .map(n -> n.substring(0, n.length() - ".class".length()))
                    .collect(Collectors.toSet());
            for (Path api : apis.sorted().toList()) {
                Matcher name = API.matcher(api.getFileName().toString());
                if (!name.matches()) {
                    continue;
                }
                ModelApiPaths paths;
                try (InputStream in = Files.newInputStream(api)) {
                    paths = new ModelApiPaths(in);
                }
                paths.pathByMethod.forEach((method, path) -> {
                    Matcher create = CREATE.matcher(method);
                    Matcher collection = COLLECTION.matcher(path);
                    if (!create.matches() || !collection.matches()) {
                        return; // not a create, or a subresource (pods/{name}/binding, ...)
                    }
                    String kind = create.group(2);
                    String version = collection.group(2);
                    String plain = name.group(2) + kind;
                    String prefixed = name.group(1) + plain;
                    String model = modelClasses.contains(plain) ? plain : modelClasses.contains(prefixed) ? prefixed : null;
                    if (model != null) {
                        derived.add(new Derived(model, collection.group(1) == null ? "" : collection.group(1), version,
                                kind, collection.group(3) != null, collection.group(4)));
                    }
                });
            }
        }
    }

    @Test
    void theTableIsTheOneDerivedFromTheModels() throws IOException {
        Map<String, String> table = new TreeMap<>();
        for (Derived d : derived) {
            String key = d.model();
            String value = d.group() + "|" + (d.namespaced() ? "ns" : "cluster") + "|" + d.plural();
            String before = table.put(key, value);
            assertThat(before).as("%s is served twice, differently", key).isIn(null, value);
        }
        String text = table.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n", "", "\n"));
        if (Boolean.getBoolean("kinds.update")) {
            Files.writeString(TABLE, text, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(TABLE, StandardCharsets.UTF_8)).isEqualTo(text);
        assertThat(table).hasSizeGreaterThan(60);
    }

    @Test
    void everyKindOfTheModelsResolves() throws ClassNotFoundException {
        for (Derived d : derived) {
            Class<?> model = Class.forName("io.kubernetes.client.openapi.models." + d.model(), false,
                    getClass().getClassLoader());
            assertThat(ResourceType.of(model)).as(d.model())
                    .isEqualTo(new ResourceType<>(d.group(), d.version(), d.plural(), d.kind(), d.namespaced(), model));
        }
    }

    @Test
    void everyOtherModelClassIsRefused() throws ClassNotFoundException {
        Set<String> kinds = derived.stream().map(Derived::model).collect(Collectors.toSet());
        for (String name : modelClasses) {
            if (kinds.contains(name)) {
                continue;
            }
            Class<?> model = Class.forName("io.kubernetes.client.openapi.models." + name, false,
                    getClass().getClassLoader());
            assertThatThrownBy(() -> ResourceType.of(model)).as(name).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theKindsTheReviewFoundMissing() {
        assertThat(ResourceType.of(CoreV1Event.class)).isEqualTo(
                new ResourceType<>("", "v1", "events", "Event", true, CoreV1Event.class));
        assertThat(ResourceType.of(EventsV1Event.class)).isEqualTo(
                new ResourceType<>("events.k8s.io", "v1", "events", "Event", true, EventsV1Event.class));
        assertThatThrownBy(() -> ResourceType.of(V1PodSpec.class)).isInstanceOf(IllegalArgumentException.class);
    }
}
