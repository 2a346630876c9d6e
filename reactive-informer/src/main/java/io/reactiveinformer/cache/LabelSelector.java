package io.reactiveinformer.cache;

import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A label selector as the API server understands it, for filtering cached objects locally:
 * {@code app=web,tier!=db,env in (prod,staging),!canary,owner} (equality, inequality, set membership,
 * existence). {@code !=} and {@code notin} also match objects without the label, as on the server.
 * Keys and values are checked against the API server's label syntax (a key is an optional DNS
 * subdomain prefix and {@code /}, then a name of at most 63 characters; a value is empty or such a
 * name). Immutable and thread-safe.
 */
public final class LabelSelector {

    private static final LabelSelector EVERYTHING = new LabelSelector(List.of(), "");
    private static final Pattern NAME = Pattern.compile("^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$");
    private static final Pattern PREFIX = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
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

    /**
     * A selector matching objects that carry all of {@code labels} (a {@code matchLabels}).
     *
     * @throws IllegalArgumentException when a key or value is not valid label syntax
     */
    public static LabelSelector matchLabels(Map<String, String> labels) {
        return of(new V1LabelSelector().matchLabels(labels));
    }

    /**
     * The selector an object spec holds (e.g. a Deployment's {@code spec.selector}): its
     * {@code matchLabels} and {@code matchExpressions} ({@code In}, {@code NotIn}, {@code Exists},
     * {@code DoesNotExist}) all must match. An empty selector selects everything. (client-go reads a
     * missing selector as matching nothing; decide that before calling, this method needs one.)
     *
     * @throws IllegalArgumentException for an unknown operator, values where none are allowed or none
     *                                  where some are required, or invalid key or value syntax
     */
    public static LabelSelector of(V1LabelSelector selector) {
        Objects.requireNonNull(selector, "selector");
        List<Requirement> requirements = new ArrayList<>();
        List<String> text = new ArrayList<>();
        String described = String.valueOf(selector).replace('\n', ' ');
        if (selector.getMatchLabels() != null) {
            new java.util.TreeMap<>(selector.getMatchLabels()).forEach((key, value) -> {
                requirements.add(new Requirement(key(key, described), Operator.EQUALS, Set.of(value(value, described))));
                text.add(key + "=" + value);
            });
        }
        if (selector.getMatchExpressions() != null) {
            for (V1LabelSelectorRequirement expression : selector.getMatchExpressions()) {
                String key = key(expression.getKey(), described);
                List<String> values = expression.getValues() == null ? List.of() : expression.getValues();
                Set<String> checked = new TreeSet<>();
                values.forEach(v -> checked.add(value(v, described)));
                String operator = String.valueOf(expression.getOperator());
                switch (operator) {
                    case "In", "NotIn" -> {
                        if (checked.isEmpty()) {
                            throw invalid(described, operator + " needs values");
                        }
                        boolean in = operator.equals("In");
                        requirements.add(new Requirement(key, in ? Operator.IN : Operator.NOT_IN, Set.copyOf(checked)));
                        text.add(key + (in ? " in (" : " notin (") + String.join(",", checked) + ")");
                    }
                    case "Exists", "DoesNotExist" -> {
                        if (!checked.isEmpty()) {
                            throw invalid(described, operator + " takes no values");
                        }
                        boolean exists = operator.equals("Exists");
                        requirements.add(new Requirement(key, exists ? Operator.EXISTS : Operator.DOES_NOT_EXIST, Set.of()));
                        text.add(exists ? key : "!" + key);
                    }
                    default -> throw invalid(described, "unknown operator " + operator);
                }
            }
        }
        return requirements.isEmpty() ? EVERYTHING : new LabelSelector(List.copyOf(requirements), String.join(",", text));
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
                values.add(value(value.trim(), selector));
            }
            Operator operator = set.group(2).equals("in") ? Operator.IN : Operator.NOT_IN;
            return new Requirement(key(set.group(1), selector), operator, Set.copyOf(values));
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
            return new Requirement(key(part.substring(1).trim(), selector), Operator.DOES_NOT_EXIST, Set.of());
        }
        return new Requirement(key(part, selector), Operator.EXISTS, Set.of());
    }

    private static Requirement binary(String part, int at, int width, Operator operator, String selector) {
        String key = key(part.substring(0, at).trim(), selector);
        return new Requirement(key, operator, Set.of(value(part.substring(at + width).trim(), selector)));
    }

    private static String key(String key, String selector) {
        if (key == null) {
            throw invalid(selector, "a requirement without key");
        }
        int slash = key.indexOf('/');
        String name = slash < 0 ? key : key.substring(slash + 1);
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            if (prefix.isEmpty() || prefix.length() > 253 || !PREFIX.matcher(prefix).matches()) {
                throw invalid(selector, "invalid key prefix '" + prefix + "'");
            }
        }
        if (!NAME.matcher(name).matches()) {
            throw invalid(selector, "invalid key '" + key + "'");
        }
        return key;
    }

    private static String value(String value, String selector) {
        if (value == null || (!value.isEmpty() && !NAME.matcher(value).matches())) {
            throw invalid(selector, "invalid value '" + value + "'");
        }
        return value;
    }

    private static IllegalArgumentException invalid(String selector, String problem) {
        return new IllegalArgumentException("invalid label selector '" + selector + "': " + problem);
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
