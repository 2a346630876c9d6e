package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Drops the fields an object's schema does not declare, as the real server does: a built-in kind's
 * decoder knows only its Go struct's fields, a custom resource is pruned by its structural schema
 * (everything under {@code x-kubernetes-preserve-unknown-fields} is kept; a resource's
 * {@code apiVersion} and {@code kind} are kept, and its {@code metadata}, at the root and in
 * {@code x-kubernetes-embedded-resource}s, keeps what ObjectMeta declares). A {@code null} where the
 * schema does not say {@code nullable} is dropped too, silently.
 *
 * <p>The dropped fields are the "unknown fields" that {@link FieldValidation} refuses or warns about,
 * named as the real server names them ({@code spec.template.spec.containers[0].bogus}) and in its
 * order: a built-in kind's in the order of the body, a custom resource's sorted, those in embedded
 * resources' metadata last. A kind without a schema (a {@code ResourceType.dynamic} registered
 * without its definition) keeps everything. Stateless.
 */
final class Pruning {

    private static final Schema OBJECT_META = Schema.builtIn(ResourceType.of(V1ConfigMap.class))
            .map(s -> s.property("metadata")).orElse(Schema.UNKNOWN);

    private final boolean custom;
    private final boolean remove;
    private final List<String> unknown = new ArrayList<>();
    private final List<String> inEmbeddedMetadata = new ArrayList<>();
    private boolean changes;

    private Pruning(boolean custom, boolean remove) {
        this.custom = custom;
        this.remove = remove;
    }

    /**
     * {@code object} without what {@code kind}'s schema does not declare: {@code object} itself when
     * that is nothing, else a pruned copy.
     */
    static ObjectNode pruned(Kind kind, ObjectNode object) {
        Pruning look = new Pruning(kind.defined, false);
        look.walk(kind.schema(), object, "", kind.defined);
        if (!look.changes) {
            return object;
        }
        ObjectNode copy = object.deepCopy();
        new Pruning(kind.defined, true).walk(kind.schema(), copy, "", kind.defined);
        return copy;
    }

    /** The fields of {@code object} that {@code kind}'s schema does not declare, as the real server lists them. */
    static List<String> unknownFields(Kind kind, JsonNode object) {
        Pruning look = new Pruning(kind.defined, false);
        look.walk(kind.schema(), object, "", kind.defined);
        List<String> found = new ArrayList<>(look.unknown);
        if (kind.defined) {
            Collections.sort(found);
        }
        found.addAll(look.inEmbeddedMetadata);
        return found;
    }

    /** Whether an object of {@code schema} keeps a field {@code name}: declared, a map's key, or preserved. */
    private boolean allows(Schema schema, String name) {
        if (schema.allows(name)) {
            return true;
        }
        // a built-in schema without properties stands for a type the OpenAPI does not spell out
        return !custom && !schema.raw().has("properties");
    }

    private void walk(Schema schema, JsonNode value, String path, boolean resourceRoot) {
        if (!schema.known()) {
            return;
        }
        if (value instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                walk(schema.items(), array.get(i), path + "[" + i + "]", false);
            }
            return;
        }
        if (!(value instanceof ObjectNode object)) {
            return;
        }
        for (String name : new ArrayList<>(object.propertyNames())) {
            JsonNode child = object.get(name);
            String at = path.isEmpty() ? name : path + "." + name;
            if (resourceRoot && (name.equals("apiVersion") || name.equals("kind"))) {
                continue;
            }
            if (resourceRoot && name.equals("metadata")) {
                Pruning meta = new Pruning(false, remove);
                meta.walk(OBJECT_META, child, at, false);
                (path.isEmpty() ? unknown : inEmbeddedMetadata).addAll(meta.unknown);
                changes |= meta.changes;
                continue;
            }
            Schema declared = schema.property(name);
            if (!allows(schema, name)) {
                drop(object, name);
                if (!child.isNull()) {
                    unknown.add(at);
                }
            } else if (child.isNull() && declared.known() && !declared.raw().path("nullable").asBoolean(false)) {
                drop(object, name);
            } else {
                walk(declared, child, at, custom && declared.raw().path("x-kubernetes-embedded-resource").asBoolean(false));
            }
        }
    }

    private void drop(ObjectNode object, String name) {
        changes = true;
        if (remove) {
            object.remove(name);
        }
    }
}
