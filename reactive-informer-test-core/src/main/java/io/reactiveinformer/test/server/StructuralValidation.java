package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1StatusCause;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Validates a custom resource by the structural schema of its definition, as kube-apiserver's
 * apiextensions validator does after pruning: {@code type} (with {@code x-kubernetes-int-or-string}),
 * {@code required}, {@code enum}, {@code minimum}/{@code maximum} (and their exclusive forms),
 * {@code minLength}/{@code maxLength}, {@code pattern}, {@code minItems}/{@code maxItems}, the
 * formats {@code date-time}, {@code date}, {@code uuid}, {@code byte}, and the {@code apiVersion} and
 * {@code kind} an embedded resource requires. Every violation is a cause of one 422 Invalid with the
 * real server's reason, field and message (the real server lists them in no stable order; here
 * they come in the order of the schema). Not checked: CEL rules, {@code minProperties}/{@code maxProperties},
 * other formats. Stateless.
 */
final class StructuralValidation {

    private static final Pattern UUID = Pattern.compile(
            "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$");
    private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

    private final List<V1StatusCause> causes = new ArrayList<>();

    private StructuralValidation() {
    }

    /** 422 Invalid, naming every violation, unless {@code object} of {@code kind} satisfies its definition's schema. */
    static void check(Kind kind, ObjectNode object) {
        if (!kind.defined) {
            return;
        }
        StructuralValidation validation = new StructuralValidation();
        validation.object(kind.schema(), object, "", true);
        if (!validation.causes.isEmpty()) {
            throw ApiError.invalid(kind.type, object.path("metadata").path("name").asString(""), validation.causes);
        }
    }

    private void value(Schema schema, JsonNode value, String path) {
        if (!schema.known()) {
            return;
        }
        JsonNode s = schema.raw();
        if (value.isNull()) {
            if (!s.path("nullable").asBoolean(false) && !s.path("type").asString("").isEmpty()) {
                typeInvalid(path, "null", s.path("type").asString());
            }
            return;
        }
        String actual = typeOf(value);
        if (s.path("x-kubernetes-int-or-string").asBoolean(false)) {
            if (!actual.equals("integer") && !actual.equals("string")) {
                typeInvalid(path, actual, "integer,string");
            }
            return;
        }
        String declared = s.path("type").asString("");
        if (!declared.isEmpty() && !declared.equals(actual) && !(declared.equals("number") && actual.equals("integer"))) {
            typeInvalid(path, actual, declared);
            return;
        }
        enumeration(s, value, path);
        switch (actual) {
            case "object" -> object(schema, (ObjectNode) value, path,
                    s.path("x-kubernetes-embedded-resource").asBoolean(false));
            case "array" -> array(schema, value, path);
            case "string" -> string(s, value.asString(), path);
            case "integer", "number" -> number(s, value, path);
            default -> { }
        }
    }

    private void object(Schema schema, ObjectNode object, String path, boolean resource) {
        String prefix = path.isEmpty() ? "" : path + ".";
        for (String name : schema.properties()) {
            JsonNode child = object.get(name);
            if (child != null && !(path.isEmpty() && (name.equals("metadata") || name.equals("apiVersion")
                    || name.equals("kind")))) {
                value(schema.property(name), child, prefix + name);
            }
        }
        if (schema.isMap()) {
            for (Map.Entry<String, JsonNode> e : object.properties()) {
                value(schema.property(e.getKey()), e.getValue(), prefix + e.getKey());
            }
        }
        for (JsonNode required : schema.raw().path("required")) {
            if (!object.has(required.asString())) {
                causes.add(cause("FieldValueRequired", "Required value", prefix + required.asString()));
            }
        }
        if (resource && !path.isEmpty()) {
            for (String required : List.of("apiVersion", "kind")) {
                if (object.path(required).asString("").isEmpty()) {
                    causes.add(cause("FieldValueRequired", "Required value", prefix + required));
                }
            }
        }
    }

    private void array(Schema schema, JsonNode array, String path) {
        JsonNode s = schema.raw();
        if (s.has("maxItems") && array.size() > s.path("maxItems").asInt()) {
            causes.add(cause("FieldValueTooMany", "Too many: " + array.size() + ": must have at most "
                    + s.path("maxItems").asInt() + " items", path));
        }
        if (s.has("minItems") && array.size() < s.path("minItems").asInt()) {
            invalid(path, Integer.toString(array.size()), path + " in body should have at least "
                    + s.path("minItems").asInt() + " items");
        }
        for (int i = 0; i < array.size(); i++) {
            value(schema.items(), array.get(i), path + "[" + i + "]");
        }
    }

    private void string(JsonNode s, String text, String path) {
        int length = text.codePointCount(0, text.length());
        if (s.has("maxLength") && length > s.path("maxLength").asInt()) {
            causes.add(cause("FieldValueTooLong", "Too long: may not be more than " + s.path("maxLength").asInt()
                    + " bytes", path));
        }
        if (s.has("minLength") && length < s.path("minLength").asInt()) {
            invalid(path, quote(text), path + " in body should be at least " + s.path("minLength").asInt()
                    + " chars long");
        }
        String pattern = s.path("pattern").asString("");
        if (!pattern.isEmpty() && !compiled(pattern).matcher(text).find()) {
            invalid(path, quote(text), path + " in body should match '" + pattern + "'");
        }
        String format = s.path("format").asString("");
        if (!format.isEmpty() && !matchesFormat(format, text)) {
            causes.add(cause("FieldValueTypeInvalid", "Invalid value: " + quote(text) + ": " + path
                    + " in body must be of type " + format + ": " + quote(text), path));
        }
    }

    private void number(JsonNode s, JsonNode value, String path) {
        BigDecimal n = value.decimalValue();
        if (s.has("maximum")) {
            BigDecimal max = s.path("maximum").decimalValue();
            boolean exclusive = s.path("exclusiveMaximum").asBoolean(false);
            if (exclusive ? n.compareTo(max) >= 0 : n.compareTo(max) > 0) {
                invalid(path, format(value), path + " in body should be less than " + (exclusive ? "" : "or equal to ")
                        + format(s.path("maximum")));
            }
        }
        if (s.has("minimum")) {
            BigDecimal min = s.path("minimum").decimalValue();
            boolean exclusive = s.path("exclusiveMinimum").asBoolean(false);
            if (exclusive ? n.compareTo(min) <= 0 : n.compareTo(min) < 0) {
                invalid(path, format(value), path + " in body should be greater than "
                        + (exclusive ? "" : "or equal to ") + format(s.path("minimum")));
            }
        }
    }

    private void enumeration(JsonNode s, JsonNode value, String path) {
        JsonNode allowed = s.path("enum");
        if (!allowed.isArray()) {
            return;
        }
        List<String> supported = new ArrayList<>();
        for (JsonNode candidate : allowed) {
            if (candidate.equals(value) || (candidate.isNumber() && value.isNumber()
                    && candidate.decimalValue().compareTo(value.decimalValue()) == 0)) {
                return;
            }
            supported.add(format(candidate));
        }
        causes.add(cause("FieldValueNotSupported", "Unsupported value: " + format(value) + ": supported values: "
                + String.join(", ", supported), path));
    }

    private void typeInvalid(String path, String actual, String expected) {
        causes.add(cause("FieldValueTypeInvalid", "Invalid value: \"" + actual + "\": " + path
                + " in body must be of type " + expected + ": \"" + actual + "\"", path));
    }

    private void invalid(String path, String value, String detail) {
        causes.add(cause("FieldValueInvalid", "Invalid value: " + value + ": " + detail, path));
    }

    private static V1StatusCause cause(String reason, String message, String field) {
        return new V1StatusCause().reason(reason).message(message).field(field);
    }

    /** The JSON type of a value, as the real server names it in messages. */
    private static String typeOf(JsonNode value) {
        if (value.isObject()) {
            return "object";
        }
        if (value.isArray()) {
            return "array";
        }
        if (value.isString()) {
            return "string";
        }
        if (value.isBoolean()) {
            return "boolean";
        }
        if (value.isIntegralNumber()) {
            return "integer";
        }
        return value.isNumber() ? "number" : "null";
    }

    /** A value as Go's {@code %v} prints it in these messages: strings quoted, numbers without a needless {@code .0}. */
    private static String format(JsonNode value) {
        if (value.isString()) {
            return quote(value.asString());
        }
        if (value.isNumber() && !value.isIntegralNumber()) {
            BigDecimal n = value.decimalValue().stripTrailingZeros();
            return n.scale() <= 0 ? n.toBigInteger().toString() : n.toPlainString();
        }
        return value.toString();
    }

    private static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static Pattern compiled(String pattern) {
        return PATTERNS.computeIfAbsent(pattern, p -> {
            try {
                return Pattern.compile(p);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("the pattern '" + p + "' is not supported here: " + e.getMessage(), e);
            }
        });
    }

    private static boolean matchesFormat(String format, String text) {
        try {
            return switch (format) {
                case "date-time" -> OffsetDateTime.parse(text) != null;
                case "date" -> LocalDate.parse(text) != null;
                case "uuid" -> UUID.matcher(text).matches();
                case "byte" -> Base64.getDecoder().decode(text) != null;
                default -> true;
            };
        } catch (DateTimeParseException | IllegalArgumentException e) {
            return false;
        }
    }
}
