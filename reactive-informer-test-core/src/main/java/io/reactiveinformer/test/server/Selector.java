package io.reactiveinformer.test.server;

import io.reactiveinformer.cache.LabelSelector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A parsed label or field selector. Labels: the library's own {@link LabelSelector} (the client and
 * the simulated server must agree on the syntax). Fields: only {@code metadata.name} and
 * {@code metadata.namespace} with {@code =}, {@code ==}, {@code !=}, which every kind supports on the
 * real server.
 */
final class Selector {

    private record FieldRequirement(String field, boolean equal, String value) {
    }

    private static final Selector EVERYTHING = new Selector(LabelSelector.everything(), List.of());

    private final LabelSelector labels;
    private final List<FieldRequirement> fields;

    private Selector(LabelSelector labels, List<FieldRequirement> fields) {
        this.labels = labels;
        this.fields = fields;
    }

    static Selector everything() {
        return EVERYTHING;
    }

    boolean isEverything() {
        return labels.isEverything() && fields.isEmpty();
    }

    static Selector labels(String text) {
        if (text == null || text.isBlank()) {
            return EVERYTHING;
        }
        try {
            return new Selector(LabelSelector.parse(text), List.of());
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("unable to parse requirement: " + e.getMessage());
        }
    }

    static Selector fields(String text) {
        if (text == null || text.isBlank()) {
            return EVERYTHING;
        }
        List<FieldRequirement> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String p = part.trim();
            boolean ne = p.contains("!=");
            String[] kv = ne ? p.split("!=", 2) : p.split("==?", 2);
            if (kv.length != 2) {
                throw ApiError.badRequest("invalid field selector: \"" + text + "\"");
            }
            String field = kv[0].trim();
            if (!field.equals("metadata.name") && !field.equals("metadata.namespace")) {
                throw ApiError.badRequest("field label not supported: " + field);
            }
            out.add(new FieldRequirement(field.substring("metadata.".length()), !ne, kv[1].trim()));
        }
        return new Selector(LabelSelector.everything(), List.copyOf(out));
    }

    /** Whether {@code object} (a stored object tree) satisfies every requirement. */
    boolean matches(JsonNode object) {
        JsonNode metadata = object.path("metadata");
        for (FieldRequirement r : fields) {
            JsonNode value = metadata.path(r.field());
            String actual = value.isMissingNode() || value.isNull() ? "" : value.asString();
            if (actual.equals(r.value()) != r.equal()) {
                return false;
            }
        }
        return labels.isEverything() || labels.matches(labelsOf(metadata));
    }

    private static Map<String, String> labelsOf(JsonNode metadata) {
        Map<String, String> labels = new HashMap<>();
        metadata.path("labels").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
        return labels;
    }
}
