package io.reactiveinformer.test.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A parsed label or field selector: a conjunction of requirements. Labels: {@code k=v}, {@code k==v},
 * {@code k!=v}, {@code k in (a,b)}, {@code k notin (a,b)}, {@code k}, {@code !k}. Fields: only
 * {@code metadata.name} and {@code metadata.namespace} with {@code =}, {@code ==}, {@code !=}, which
 * every kind supports on the real server.
 */
final class Selector {

    private enum Op { EQ, NE, IN, NOT_IN, EXISTS, NOT_EXISTS }

    private record Requirement(String key, Op op, Set<String> values) {
    }

    private static final Selector EVERYTHING = new Selector(List.of(), false);

    private final List<Requirement> requirements;
    private final boolean fields;

    private Selector(List<Requirement> requirements, boolean fields) {
        this.requirements = requirements;
        this.fields = fields;
    }

    static Selector everything() {
        return EVERYTHING;
    }

    boolean isEverything() {
        return requirements.isEmpty();
    }

    static Selector labels(String text) {
        if (text == null || text.isBlank()) {
            return EVERYTHING;
        }
        List<Requirement> out = new ArrayList<>();
        for (String part : splitTopLevel(text)) {
            String p = part.trim();
            java.util.regex.Matcher set = java.util.regex.Pattern.compile("^(\\S+)\\s+(in|notin)\\s+\\((.*)\\)$").matcher(p);
            if (set.matches()) {
                Set<String> values = new java.util.LinkedHashSet<>();
                for (String v : set.group(3).split(",")) {
                    values.add(v.trim());
                }
                out.add(new Requirement(key(set.group(1), text), "in".equals(set.group(2)) ? Op.IN : Op.NOT_IN, values));
            } else if (p.contains("!=")) {
                String[] kv = p.split("!=", 2);
                out.add(new Requirement(key(kv[0], text), Op.NE, Set.of(kv[1].trim())));
            } else if (p.contains("=")) {
                String[] kv = p.split("==?", 2);
                out.add(new Requirement(key(kv[0], text), Op.EQ, Set.of(kv[1].trim())));
            } else if (p.startsWith("!")) {
                out.add(new Requirement(key(p.substring(1), text), Op.NOT_EXISTS, Set.of()));
            } else {
                out.add(new Requirement(key(p, text), Op.EXISTS, Set.of()));
            }
        }
        return new Selector(List.copyOf(out), false);
    }

    static Selector fields(String text) {
        if (text == null || text.isBlank()) {
            return EVERYTHING;
        }
        List<Requirement> out = new ArrayList<>();
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
            out.add(new Requirement(field, ne ? Op.NE : Op.EQ, Set.of(kv[1].trim())));
        }
        return new Selector(List.copyOf(out), true);
    }

    /** Whether {@code object} (a stored object tree) satisfies every requirement. */
    boolean matches(JsonNode object) {
        for (Requirement r : requirements) {
            JsonNode value = fields
                    ? object.path("metadata").path(r.key().substring("metadata.".length()))
                    : object.path("metadata").path("labels").path(r.key());
            String actual = value.isMissingNode() || value.isNull() ? null : value.asString();
            if (fields && actual == null) {
                actual = "";
            }
            boolean ok = switch (r.op()) {
                case EQ, IN -> actual != null && r.values().contains(actual);
                case NE, NOT_IN -> actual == null || !r.values().contains(actual);
                case EXISTS -> actual != null;
                case NOT_EXISTS -> actual == null;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static String key(String raw, String whole) {
        String k = raw.trim();
        if (k.isEmpty() || !k.matches("[A-Za-z0-9][-A-Za-z0-9_./]*")) {
            throw ApiError.badRequest("unable to parse requirement: invalid label key \"" + k + "\" in \"" + whole + "\"");
        }
        return k;
    }

    /** Splits on commas outside parentheses. */
    private static List<String> splitTopLevel(String text) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(text.substring(start));
        return parts;
    }
}
