package io.reactiveinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.test.junit.SimulatedApiServerExtension;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.workqueue.WorkQueue;
import java.io.IOException;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The public API of every published module, as a committed listing ({@code src/test/resources/api/<module>.txt}):
 * each public type and its public and protected members, with generic signatures. A change to the API
 * fails this test until the listing is regenerated (see CONTRIBUTING.md), so every change shows in review.
 * japicmp would need a released baseline; there is none before 0.1.0.
 */
class PublicApiTest {

    record Module(String name, Class<?> anchor) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Module> modules() {
        return List.of(new Module("reactive-informer", KubernetesClient.class),
                new Module("reactive-workqueue", WorkQueue.class),
                new Module("reactive-controller", io.reactiveinformer.controller.Controller.class),
                new Module("reactive-informer-test-core", SimulatedApiServer.class),
                new Module("reactive-informer-test", SimulatedApiServerExtension.class));
    }

    @ParameterizedTest
    @MethodSource("modules")
    void publicApiIsTheCommittedListing(Module module) throws Exception {
        String actual = listing(module.anchor());
        Path committed = Path.of("src/test/resources/api", module.name() + ".txt");
        if (Boolean.getBoolean("api.update")) {
            Files.writeString(committed, actual, StandardCharsets.UTF_8);
        }
        assertThat(actual)
                .as("public API of %s differs from %s; if intended, regenerate it (CONTRIBUTING.md)", module, committed)
                .isEqualTo(Files.exists(committed) ? Files.readString(committed, StandardCharsets.UTF_8) : "");
    }

    private static String listing(Class<?> anchor) throws IOException, URISyntaxException, ClassNotFoundException {
        List<String> lines = new ArrayList<>();
        for (String name : classNames(Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI()))) {
            Class<?> type = Class.forName(name, false, anchor.getClassLoader());
            if (!isExported(type)) {
                continue;
            }
            lines.add(describe(type));
            Stream.of(type.getDeclaredConstructors(), type.getDeclaredMethods(), type.getDeclaredFields())
                    .flatMap(Arrays::stream)
                    .filter(m -> !m.isSynthetic() && isVisible(m.getModifiers()))
                    .map(m -> "  " + signature((Member) m))
                    .sorted()
                    .forEach(lines::add);
        }
        return String.join("\n", lines) + "\n";
    }

    private static List<String> classNames(Path location) throws IOException {
        if (Files.isDirectory(location)) {
            return classNamesUnder(location);
        }
        try (FileSystem jar = FileSystems.newFileSystem(location)) {
            return classNamesUnder(jar.getPath("/"));
        }
    }

    private static List<String> classNamesUnder(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.map(p -> root.relativize(p).toString())
                    .filter(p -> p.endsWith(".class") && !p.endsWith("module-info.class")
                            && !p.endsWith("package-info.class"))
                    .map(p -> p.substring(0, p.length() - ".class".length()).replace('/', '.'))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    private static boolean isExported(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (t.isAnonymousClass() || t.isLocalClass() || t.isSynthetic() || !isVisible(t.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static boolean isVisible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static String describe(Class<?> type) {
        StringBuilder b = new StringBuilder(type.toGenericString());
        if (type.getGenericSuperclass() != null && type.getSuperclass() != Object.class && !type.isEnum()
                && !type.isRecord()) {
            b.append(" extends ").append(type.getGenericSuperclass().getTypeName());
        }
        if (type.getGenericInterfaces().length > 0) {
            b.append(type.isInterface() ? " extends " : " implements ").append(Arrays.stream(type.getGenericInterfaces())
                    .map(java.lang.reflect.Type::getTypeName).collect(Collectors.joining(", ")));
        }
        return b.toString();
    }

    private static String signature(Member member) {
        if (member instanceof Field f) {
            return f.toGenericString();
        }
        return ((Executable) member).toGenericString();
    }
}
