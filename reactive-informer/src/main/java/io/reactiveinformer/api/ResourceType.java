package io.reactiveinformer.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a kind lives in the API: group, version, plural resource name, scope, and the Java type its
 * objects decode to.
 *
 * @param group      API group, {@code ""} for the core group
 * @param version    e.g. {@code v1}
 * @param plural     the resource name in URLs, e.g. {@code deployments}
 * @param kind       e.g. {@code Deployment}
 * @param namespaced whether objects live in namespaces
 * @param type       the Java class objects decode to
 * @param <T>        the object type
 */
public record ResourceType<T>(String group, String version, String plural, String kind, boolean namespaced,
                              Class<T> type) {

    private static final Pattern MODEL_NAME =
            Pattern.compile("^([A-Z][A-Za-z]*?)?(V\\d+(?:(?:alpha|beta)\\d+)?)([A-Z]\\w*)$");

    /**
     * Model class simple name -> {@code group|ns or cluster|plural}, generated from the models jar by
     * {@code BuiltInKindsTest}: every model class the API server creates as a resource, no other.
     */
    private static final Map<String, String> BUILT_IN = builtIn();

    public ResourceType {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(plural, "plural");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(type, "type");
    }

    /**
     * The resource of an official model class: {@code V1Pod}, {@code V1Deployment},
     * {@code V2HorizontalPodAutoscaler}, {@code CoreV1Event}, {@code EventsV1Event}, ...
     *
     * @throws IllegalArgumentException for a class that is not a known built-in kind (give the
     *                                  resource explicitly with {@link #namespaced} or {@link #clusterScoped})
     */
    public static <T> ResourceType<T> of(Class<T> model) {
        Matcher m = MODEL_NAME.matcher(model.getSimpleName());
        String entry = m.matches() ? BUILT_IN.get(model.getSimpleName()) : null;
        if (entry == null || !model.getName().startsWith("io.kubernetes.client.openapi.models.")) {
            throw new IllegalArgumentException(model.getName() + " is not a built-in Kubernetes kind; "
                    + "describe it with ResourceType.namespaced(...) or ResourceType.clusterScoped(...)");
        }
        String[] parts = entry.split("\\|", -1);
        return new ResourceType<>(parts[0], m.group(2).toLowerCase(Locale.ROOT), parts[2], m.group(3),
                "ns".equals(parts[1]), model);
    }

    /** A namespaced resource, e.g. a custom resource with its own POJO. */
    public static <T> ResourceType<T> namespaced(String group, String version, String plural, String kind, Class<T> type) {
        return new ResourceType<>(group, version, plural, kind, true, type);
    }

    /** A cluster-scoped resource. */
    public static <T> ResourceType<T> clusterScoped(String group, String version, String plural, String kind,
                                                    Class<T> type) {
        return new ResourceType<>(group, version, plural, kind, false, type);
    }

    /** Any resource as {@link DynamicObject}s. */
    public static ResourceType<DynamicObject> dynamic(String group, String version, String plural, String kind,
                                                      boolean namespaced) {
        return new ResourceType<>(group, version, plural, kind, namespaced, DynamicObject.class);
    }

    /**
     * The same resource read as {@link PartialObjectMetadata}: a client handle on it lists, watches and
     * gets only the objects' metadata (the server strips the rest), and an informer on it caches
     * only that. Idempotent.
     */
    public ResourceType<PartialObjectMetadata> metadataOnly() {
        return new ResourceType<>(group, version, plural, kind, namespaced, PartialObjectMetadata.class);
    }

    /** Whether objects are read as {@link PartialObjectMetadata} (see {@link #metadataOnly()}). */
    public boolean isMetadataOnly() {
        return type == PartialObjectMetadata.class;
    }

    /** {@code v1} or {@code group/version}, as in an object's {@code apiVersion}. */
    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    private static Map<String, String> builtIn() {
        Map<String, String> table = new HashMap<>();
        try (InputStream in = ResourceType.class.getResourceAsStream("built-in-kinds.txt")) {
            if (in == null) {
                throw new IllegalStateException("built-in-kinds.txt is missing from the jar");
            }
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    table.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.copyOf(table);
    }
}
