package io.reactiveinformer.test.server;

import static io.reactiveinformer.test.server.StrategicMergePatch.items;

import java.math.BigDecimal;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/** JSON values as Go's {@code %v} prints the maps and slices they decode to, for the real messages. */
final class GoFormat {

    private GoFormat() {
    }

    static String of(JsonNode node) {
        if (node.isObject()) {
            Map<String, JsonNode> sorted = new TreeMap<>();
            node.properties().forEach(e -> sorted.put(e.getKey(), e.getValue()));
            StringBuilder out = new StringBuilder("map[");
            sorted.forEach((k, v) -> out.append(out.length() > 4 ? " " : "").append(k).append(':').append(of(v)));
            return out.append(']').toString();
        }
        if (node.isArray()) {
            return list(items(node));
        }
        if (node.isNull()) {
            return "<nil>";
        }
        if (node.isNumber()) {
            BigDecimal value = node.decimalValue();
            return value.abs().compareTo(BigDecimal.valueOf(1e21)) < 0 ? value.stripTrailingZeros().toPlainString()
                    : String.valueOf(node.doubleValue());
        }
        return node.asString();
    }

    static String list(List<JsonNode> items) {
        StringBuilder out = new StringBuilder("[");
        for (JsonNode item : items) {
            out.append(out.length() > 1 ? " " : "").append(of(item));
        }
        return out.append(']').toString();
    }

    /**
     * A {@code []string} as Go's {@code %#v} prints it: {@code []string{"a", "b"}} (names are quoted with
     * their backslashes and quotes escaped, all a Kubernetes name can need).
     */
    static String stringSlice(Collection<String> strings) {
        StringBuilder out = new StringBuilder("[]string{");
        for (String s : strings) {
            out.append(out.length() > 9 ? ", " : "").append('"')
                    .append(s.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return out.append('}').toString();
    }

    /** A directive's value as Go's {@code %s} prints it. */
    static String text(JsonNode node) {
        return node.isString() ? node.asString() : "%!s(" + type(node) + "=" + of(node) + ")";
    }

    /** The Go type a JSON value decodes to. */
    static String type(JsonNode node) {
        return switch (node.getNodeType()) {
            case OBJECT -> "map[string]interface {}";
            case ARRAY -> "[]interface {}";
            case STRING -> "string";
            case NUMBER -> "float64";
            case BOOLEAN -> "bool";
            default -> "%!s(<nil>)";
        };
    }
}
