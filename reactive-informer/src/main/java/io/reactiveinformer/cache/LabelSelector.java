package io.reactiveinformer.cache;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A label selector as the API server understands it, for filtering cached objects locally:
 * {@code app=web,tier!=db,env in (prod,staging),!canary,owner} (equality, inequality, set membership,
 * existence). {@code !=} and {@code notin} also match objects without the label, as on the server.
 * Immutable and thread-safe.
 */
public final class LabelSelector {

    private static final LabelSelector EVERYTHING = new LabelSelector(List.of(), "");
    private static final Pattern SET_REQUIREMENT = Pattern.compile("^([^\\s!=()]+)\\s+(in|notin)\\s*\\((.*)\\)$");

    private enum Operator { EQUALS, NOT_EQUALS, IN, NOT_IN, EXISTS, DOES_NOT_EXIST }

    private record Requirement(String key, Operator operator, Set<String> values) {

        boolean matches(Map<String, String> labels) {
            String value = labels == null ? null : labels.get(key);
            return switch (operator) {
                case EQUALS, IN -> value != null && values.contains(value);
                case NOT_EQUALS, NOT_IN -> value == null || !values.contains(value);
                case EXISTS -> value != null;
                case DOES_NOT_EXIST -> value == null;
            };
        }
    }

    private final List<Requirement> requirements;
    private final String text;

    private LabelSelector(List<Requirement> requirements, String text) {
        this.requirements = requirements;
        this.text = text;
    }

    /** The selector that matches every object. */
    public static LabelSelector everything() {
        return EVERYTHING;
    }

    /** A selector matching objects that carry all of {@code labels} (a {@code matchLabels}). */
    public static LabelSelector matchLabels(Map<String, String> labels) {
        List<Requirement> requirements = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        labels.forEach((key, value) -> {
            requirements.add(new Requirement(key, Operator.EQUALS, Set.of(value)));
            text.append(text.length() == 0 ? "" : ",").append(key).append('=').append(value);
        });
        return new LabelSelector(List.copyOf(requirements), text.toString());
    }

    /**
     * Parses the API server's selector syntax; an empty string selects everything.
     *
     * @throws IllegalArgumentException when the text is not a selector
     */
    public static LabelSelector parse(String selector) {
        String trimmed = selector.trim();
        if (trimmed.isEmpty()) {
            return EVERYTHING;
        }
        List<Requirement> requirements = new ArrayList<>();
        for (String part : splitOutsideParentheses(trimmed)) {
            requirements.add(requirement(part.trim(), selector));
        }
        return new LabelSelector(List.copyOf(requirements), trimmed);
    }

    private static List<String> splitOutsideParentheses(String text) {
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

    private static Requirement requirement(String part, String selector) {
        Matcher set = SET_REQUIREMENT.matcher(part);
        if (set.matches()) {
            Set<String> values = new HashSet<>();
            for (String value : set.group(3).split(",")) {
                values.add(checked(value.trim(), selector));
            }
            Operator operator = set.group(2).equals("in") ? Operator.IN : Operator.NOT_IN;
            return new Requirement(checked(set.group(1), selector), operator, Set.copyOf(values));
        }
        int notEquals = part.indexOf("!=");
        if (notEquals > 0) {
            return binary(part, notEquals, 2, Operator.NOT_EQUALS, selector);
        }
        int doubleEquals = part.indexOf("==");
        if (doubleEquals > 0) {
            return binary(part, doubleEquals, 2, Operator.EQUALS, selector);
        }
        int equals = part.indexOf('=');
        if (equals > 0) {
            return binary(part, equals, 1, Operator.EQUALS, selector);
        }
        if (part.startsWith("!")) {
            return new Requirement(checked(part.substring(1).trim(), selector), Operator.DOES_NOT_EXIST, Set.of());
        }
        return new Requirement(checked(part, selector), Operator.EXISTS, Set.of());
    }

    private static Requirement binary(String part, int at, int width, Operator operator, String selector) {
        String key = checked(part.substring(0, at).trim(), selector);
        String value = part.substring(at + width).trim();
        if (value.contains("=") || value.contains(" ")) {
            throw invalid(selector);
        }
        return new Requirement(key, operator, Set.of(value));
    }

    private static String checked(String token, String selector) {
        if (token.isEmpty() || token.chars().anyMatch(c -> c == '(' || c == ')' || c == '!' || c == '=' || Character.isWhitespace(c))) {
            throw invalid(selector);
        }
        return token;
    }

    private static IllegalArgumentException invalid(String selector) {
        return new IllegalArgumentException("invalid label selector: '" + selector + "'");
    }

    /** Whether {@code labels} (possibly {@code null}: no labels) satisfy every requirement. */
    public boolean matches(Map<String, String> labels) {
        for (Requirement requirement : requirements) {
            if (!requirement.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    /** Whether this selector matches everything. */
    public boolean isEverything() {
        return requirements.isEmpty();
    }

    /** The selector in the API server's syntax. */
    @Override
    public String toString() {
        return text;
    }
}
