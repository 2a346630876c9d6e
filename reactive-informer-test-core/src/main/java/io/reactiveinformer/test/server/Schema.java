package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One node of an OpenAPI v3 schema, references resolved: what server-side apply, strategic merge
 * patch and validation need to know of a field. For built-in kinds it comes from kube-apiserver's own
 * documents ({@link OpenApiDocuments}: {@code x-kubernetes-list-type}, {@code x-kubernetes-list-map-keys},
 * {@code x-kubernetes-patch-strategy}, {@code x-kubernetes-patch-merge-key}, {@code x-kubernetes-map-type}),
 * so the merge keys are the real server's, not a hand-kept table; for a custom resource from its
 * CustomResourceDefinition's {@code openAPIV3Schema}.
 *
 * <p>{@link #UNKNOWN} stands for a field no schema describes (a kind without a document, a field under
 * {@code x-kubernetes-preserve-unknown-fields}): its lists are atomic and its maps granular, as
 * structured-merge-diff treats a deduced type. Immutable; a kind's schema is parsed once per JVM.
 */
final class Schema {

    /** A field no schema describes. */
    static final Schema UNKNOWN = new Schema(null, null, null);

    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final Map<String, Optional<Schema>> BUILT_IN = new ConcurrentHashMap<>();
    private static final Map<String, JsonNode> DOCUMENTS = new ConcurrentHashMap<>();

    /** The node as the parent names it (where list and patch annotations sit). */
    private final JsonNode node;
    /** The node after following {@code $ref} and single-{@code allOf} references (properties, items, type). */
    private final JsonNode resolved;
    /** {@code components.schemas} of the document, for references; null in a CRD schema (it has none). */
    private final JsonNode components;

    private Schema(JsonNode node, JsonNode resolved, JsonNode components) {
        this.node = node;
        this.resolved = resolved;
        this.components = components;
    }

    /**
     * The schema of a built-in kind from the shipped documents, or empty when its group-version has
     * none. Parsing a document takes a few milliseconds, once per JVM, on whichever thread asks first.
     */
    static Optional<Schema> builtIn(ResourceType<?> type) {
        String gvk = type.group() + "/" + type.version() + "/" + type.kind();
        return BUILT_IN.computeIfAbsent(gvk, k -> find(type));
    }

    /** A custom resource's {@code openAPIV3Schema} (structural, without references). */
    static Schema of(JsonNode openApiV3Schema) {
        return openApiV3Schema == null || openApiV3Schema.isMissingNode() || openApiV3Schema.isNull()
                ? UNKNOWN : new Schema(openApiV3Schema, openApiV3Schema, null);
    }

    private static Optional<Schema> find(ResourceType<?> type) {
        String path = type.group().isEmpty() ? "api/" + type.version() : "apis/" + type.group() + "/" + type.version();
        Optional<OpenApiDocuments.Document> document = OpenApiDocuments.of(path);
        if (document.isEmpty()) {
            return Optional.empty();
        }
        JsonNode schemas = DOCUMENTS.computeIfAbsent(path, p -> MAPPER.readTree(document.get().json()))
                .path("components").path("schemas");
        for (Map.Entry<String, JsonNode> e : schemas.properties()) {
            for (JsonNode gvk : e.getValue().path("x-kubernetes-group-version-kind")) {
                if (gvk.path("group").asString("").equals(type.group())
                        && gvk.path("version").asString("").equals(type.version())
                        && gvk.path("kind").asString("").equals(type.kind())) {
                    return Optional.of(new Schema(e.getValue(), e.getValue(), schemas));
                }
            }
        }
        return Optional.empty();
    }

    private Schema child(JsonNode child) {
        if (child == null || child.isMissingNode() || child.isNull() || child.isBoolean()) {
            return UNKNOWN;
        }
        return new Schema(child, resolve(child), components);
    }

    private JsonNode resolve(JsonNode n) {
        JsonNode current = n;
        for (int depth = 0; depth < 16; depth++) {
            String ref = current.path("$ref").asString("");
            if (ref.isEmpty()) {
                JsonNode allOf = current.path("allOf");
                if (allOf.isArray() && allOf.size() == 1 && allOf.get(0).has("$ref")) {
                    current = allOf.get(0);
                    continue;
                }
                return current;
            }
            if (components == null) {
                return current;
            }
            current = components.path(ref.substring(ref.lastIndexOf('/') + 1));
        }
        return current;
    }

    /** Whether a schema describes this field ({@link #UNKNOWN} does not). */
    boolean known() {
        return resolved != null;
    }

    /** The field's type ({@code object}, {@code array}, {@code string}, ...), or "" when not stated. */
    String type() {
        return known() ? resolved.path("type").asString("") : "";
    }

    /** The schema of property {@code name} of an object, or of a map's values; {@link #UNKNOWN} when neither. */
    Schema property(String name) {
        if (!known()) {
            return UNKNOWN;
        }
        JsonNode declared = resolved.path("properties").get(name);
        if (declared != null) {
            return child(declared);
        }
        return child(resolved.get("additionalProperties"));
    }

    /** Whether the object declares property {@code name}, or takes any (a map, or unknown fields preserved). */
    boolean allows(String name) {
        return !known() || resolved.path("properties").has(name) || isMap() || preservesUnknownFields();
    }

    /** The declared properties of an object, in the schema's order. */
    List<String> properties() {
        List<String> names = new ArrayList<>();
        if (known()) {
            resolved.path("properties").propertyNames().forEach(names::add);
        }
        return names;
    }

    /** The schema of a list's items. */
    Schema items() {
        return known() ? child(resolved.get("items")) : UNKNOWN;
    }

    /** A map with values of one schema ({@code additionalProperties}) rather than a struct. */
    boolean isMap() {
        return known() && resolved.path("additionalProperties").isObject();
    }

    /** {@code x-kubernetes-preserve-unknown-fields: true}. */
    boolean preservesUnknownFields() {
        return known() && annotation("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    }

    /**
     * How server-side apply merges this list: {@code atomic} (the default, as for an unknown list),
     * {@code set} or {@code map}.
     */
    String listType() {
        return annotation("x-kubernetes-list-type").asString("atomic");
    }

    /** The keys identifying an item of a {@code map} list. */
    List<String> listMapKeys() {
        List<String> keys = new ArrayList<>();
        annotation("x-kubernetes-list-map-keys").forEach(k -> keys.add(k.asString()));
        return keys;
    }

    /** Whether a map or struct is replaced whole by server-side apply ({@code x-kubernetes-map-type: atomic}). */
    boolean atomicMap() {
        return "atomic".equals(annotation("x-kubernetes-map-type").asString(""));
    }

    /** The strategic merge patch strategies of this field ({@code merge}, {@code retainKeys}, {@code replace}). */
    Set<String> patchStrategies() {
        String strategy = annotation("x-kubernetes-patch-strategy").asString("");
        return strategy.isEmpty() ? Set.of() : Set.of(strategy.split(","));
    }

    /** The strategic merge patch's merge key of this list, or "" when it has none. */
    String patchMergeKey() {
        return annotation("x-kubernetes-patch-merge-key").asString("");
    }

    /** The raw (resolved) schema node, for validation; a missing node when unknown. */
    JsonNode raw() {
        return known() ? resolved : tools.jackson.databind.node.MissingNode.getInstance();
    }

    private JsonNode annotation(String name) {
        if (!known()) {
            return tools.jackson.databind.node.MissingNode.getInstance();
        }
        JsonNode own = node.get(name);
        return own != null ? own : resolved.path(name);
    }

    @Override
    public String toString() {
        return known() ? "Schema[" + type() + "]" : "Schema[unknown]";
    }
}
