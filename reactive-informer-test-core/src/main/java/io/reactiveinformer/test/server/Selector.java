package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.cache.LabelSelector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * A parsed label or field selector. Labels: the library's own {@link LabelSelector} (the client and
 * the simulated server must agree on the syntax). Fields: the labels each resource supports on the
 * real server ({@link FieldLabels}), with {@code =}, {@code ==}, {@code !=}.
 */
final class Selector {

    private record FieldRequirement(Function<JsonNode, String> field, boolean equal, String value) {
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

    /** A field selector on {@code type}: the labels it supports, with {@code =}, {@code ==} and {@code !=}. */
    static Selector fields(ResourceType<?> type, String text) {
        if (text == null || text.isBlank()) {
            return EVERYTHING;
        }
        List<FieldRequirement> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String p = part.trim();
            boolean ne = p.contains("!=");
            String[] kv = ne ? p.split("!=", 2) : p.split("==?", 2);
            if (kv.length != 2) {
                throw ApiError.badRequest("invalid selector: '" + text + "'; can't understand '" + p + "'");
            }
            out.add(new FieldRequirement(FieldLabels.reader(type, kv[0].trim()), !ne, kv[1].trim()));
        }
        return new Selector(LabelSelector.everything(), List.copyOf(out));
    }

    /** Whether {@code object} (a stored object tree) satisfies every requirement. */
    boolean matches(JsonNode object) {
        for (FieldRequirement r : fields) {
            if (r.field().apply(object).equals(r.value()) != r.equal()) {
                return false;
            }
        }
        return labels.isEverything() || labels.matches(labelsOf(object.path("metadata")));
    }

    private static Map<String, String> labelsOf(JsonNode metadata) {
        Map<String, String> labels = new HashMap<>();
        metadata.path("labels").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
        return labels;
    }
}
