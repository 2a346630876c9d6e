package io.reactiveinformer.test.server;

import io.reactiveinformer.test.server.ProtobufSchema.Field;
import io.reactiveinformer.test.server.ProtobufSchema.Message;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The inverse of {@link ProtobufEncoder}, for tests: protobuf bytes back to the JSON tree Go's JSON encoding
 * writes for the same value (zero values left out where the Go field's tag says omitempty or omitzero, a zero
 * {@code Time} as null), driven by the same schema.
 */
final class ProtobufToJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'")
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
            .withZone(ZoneOffset.UTC);

    private final ProtobufSchema schema;
    private final ObjectMapper mapper;

    ProtobufToJson(ProtobufSchema schema, ObjectMapper mapper) {
        this.schema = schema;
        this.mapper = mapper;
    }

    /** An enveloped object: its kind and apiVersion from the envelope, then its fields. */
    ObjectNode envelope(byte[] bytes) {
        if (!Arrays.equals(bytes, 0, 4, ProtobufEncoder.MAGIC, 0, 4)) {
            throw new IllegalArgumentException("no k8s\\0 magic");
        }
        Map<Integer, List<Object>> unknown = fields(Arrays.copyOfRange(bytes, 4, bytes.length));
        Map<Integer, List<Object>> typeMeta = fields((byte[]) unknown.get(1).get(0));
        String apiVersion = string(typeMeta.get(1).get(0));
        String kind = string(typeMeta.get(2).get(0));
        ObjectNode object = NODES.objectNode();
        object.put("kind", kind);
        object.put("apiVersion", apiVersion);
        Message message = schema.kind(apiVersion, kind);
        object.setAll((ObjectNode) message(message, (byte[]) unknown.get(2).get(0)));
        if (kind.equals("PartialObjectMetadataList") && object.has("items")) {
            // the JSON of a metadata list types each item, which in protobuf is a bare message
            for (JsonNode item : object.get("items")) {
                ObjectNode typed = NODES.objectNode().put("kind", "PartialObjectMetadata")
                        .put("apiVersion", Representation.META_API_VERSION);
                typed.setAll((ObjectNode) item);
                ((ObjectNode) item).removeAll().setAll(typed);
            }
        }
        return object;
    }

    /** The frames of a protobuf watch stream as JSON events {@code {"type":..., "object":...}}. */
    List<ObjectNode> watchFrames(byte[] stream) {
        List<ObjectNode> events = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(stream);
        while (in.hasRemaining()) {
            byte[] frame = new byte[in.getInt()];
            in.get(frame);
            Map<Integer, List<Object>> event = fields(frame);
            byte[] raw = (byte[]) fields((byte[]) event.get(2).get(0)).get(1).get(0);
            ObjectNode json = NODES.objectNode();
            json.put("type", string(event.get(1).get(0)));
            json.set("object", envelope(raw));
            events.add(json);
        }
        return events;
    }

    JsonNode message(Message message, byte[] bytes) {
        Map<Integer, List<Object>> values = fields(bytes);
        if (message.listLike()) {
            Field only = message.fields().get(0);
            ArrayNode array = NODES.arrayNode();
            values.getOrDefault(only.number(), List.of()).forEach(v -> array.add(value(only.type(), v)));
            return array;
        }
        ObjectNode object = NODES.objectNode();
        for (Field field : message.fields()) {
            List<Object> present = values.getOrDefault(field.number(), List.of());
            if (field.inline()) {
                object.setAll((ObjectNode) message(schema.message(field.type()),
                        present.isEmpty() ? new byte[0] : (byte[]) present.get(0)));
                continue;
            }
            boolean omits = field.omitEmpty() || field.omitZero();
            switch (field.label()) {
                case REPEATED -> {
                    if (!present.isEmpty() || !omits) {
                        ArrayNode array = object.putArray(field.json());
                        present.forEach(v -> array.add(value(field.type(), v)));
                    }
                }
                case MAP -> {
                    if (!present.isEmpty() || !omits) {
                        ObjectNode map = object.putObject(field.json());
                        for (Object entry : present) {
                            Map<Integer, List<Object>> kv = fields((byte[]) entry);
                            List<Object> v = kv.getOrDefault(2, List.of());
                            map.set(string(kv.get(1).get(0)), v.isEmpty()
                                    ? (field.valueType().equals("bytes") ? NODES.nullNode() : zero(field.valueType()))
                                    : value(field.valueType(), v.get(0)));
                        }
                    }
                }
                case OPTIONAL -> {
                    if (present.isEmpty() && field.pointer()) {
                        if (!omits) {
                            object.putNull(field.json());
                        }
                        continue;
                    }
                    JsonNode value = present.isEmpty() ? zero(field.type()) : value(field.type(), present.get(0));
                    if (field.pointer() || !omits || !isZero(field, value)) {
                        object.set(field.json(), value);
                    }
                }
            }
        }
        return object;
    }

    /** Whether Go leaves this by-value field out of JSON: a zero scalar under omitempty, a zero struct under omitzero. */
    private static boolean isZero(Field field, JsonNode value) {
        if (field.scalar()) {
            return value.isString() ? value.asString().isEmpty() : value.isNumber() ? value.asDouble() == 0
                    : value.isBoolean() && !value.asBoolean();
        }
        return field.omitZero() && (value.isNull() || value.isContainer() && value.isEmpty());
    }

    private JsonNode zero(String type) {
        return switch (type) {
            case "string", "bytes" -> NODES.stringNode("");
            case "bool" -> NODES.booleanNode(false);
            case "int32", "int64", "double" -> NODES.numberNode(0);
            default -> value(type, new byte[0]);
        };
    }

    private JsonNode value(String type, Object raw) {
        return switch (type) {
            case "string" -> NODES.stringNode(string(raw));
            case "bytes" -> NODES.stringNode(Base64.getEncoder().encodeToString((byte[]) raw));
            case "bool" -> NODES.booleanNode((Long) raw != 0);
            case "int32" -> NODES.numberNode((int) (long) (Long) raw);
            // as a JSON parser reads the digits Go writes: an int when it fits
            case "int64" -> (Long) raw == (int) (long) (Long) raw ? NODES.numberNode((int) (long) (Long) raw)
                    : NODES.numberNode((Long) raw);
            case "double" -> NODES.numberNode(Double.longBitsToDouble((Long) raw));
            case ProtobufSchema.TIME, ProtobufSchema.MICRO_TIME -> {
                Map<Integer, List<Object>> t = fields((byte[]) raw);
                if (t.isEmpty()) {
                    yield NODES.nullNode();
                }
                Instant at = Instant.ofEpochSecond((Long) t.get(1).get(0), (Long) t.getOrDefault(2, List.of(0L)).get(0));
                yield NODES.stringNode((type.equals(ProtobufSchema.TIME) ? SECONDS : MICROS).format(at));
            }
            case ProtobufSchema.QUANTITY -> NODES.stringNode(string(fields((byte[]) raw).get(1).get(0)));
            case ProtobufSchema.INT_OR_STRING -> {
                Map<Integer, List<Object>> v = fields((byte[]) raw);
                yield (Long) v.get(1).get(0) == 1 ? NODES.stringNode(string(v.get(3).get(0)))
                        : NODES.numberNode((int) (long) (Long) v.get(2).get(0));
            }
            case ProtobufSchema.RAW_EXTENSION, ProtobufSchema.FIELDS_V1 -> {
                List<Object> json = fields((byte[]) raw).getOrDefault(1, List.of());
                yield json.isEmpty() ? NODES.nullNode() : mapper.readTree((byte[]) json.get(0));
            }
            default -> message(schema.message(type), (byte[]) raw);
        };
    }

    private static String string(Object raw) {
        return new String((byte[]) raw, StandardCharsets.UTF_8);
    }

    /** The fields of a message: per number, its values in order (a Long for varints and fixed64, else bytes). */
    static Map<Integer, List<Object>> fields(byte[] bytes) {
        Map<Integer, List<Object>> fields = new LinkedHashMap<>();
        int[] at = {0};
        while (at[0] < bytes.length) {
            long tag = varint(bytes, at);
            Object value = switch ((int) (tag & 7)) {
                case 0 -> varint(bytes, at);
                case 1 -> {
                    long v = 0;
                    for (int i = 0; i < 8; i++) {
                        v |= (bytes[at[0]++] & 0xFFL) << (8 * i);
                    }
                    yield v;
                }
                case 2 -> {
                    int length = (int) varint(bytes, at);
                    at[0] += length;
                    yield Arrays.copyOfRange(bytes, at[0] - length, at[0]);
                }
                default -> throw new IllegalArgumentException("wire type " + (tag & 7) + " at byte " + at[0]);
            };
            fields.computeIfAbsent((int) (tag >>> 3), k -> new ArrayList<>()).add(value);
        }
        return fields;
    }

    private static long varint(byte[] bytes, int[] at) {
        long value = 0;
        for (int shift = 0; ; shift += 7) {
            byte b = bytes[at[0]++];
            value |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return value;
            }
        }
    }

    /**
     * Every value of {@code expected} is in {@code actual} at the same place, but for nulls and the zero values
     * Go's JSON leaves out (the kit writes some of them).
     */
    static void assertContains(JsonNode actual, JsonNode expected, String path) {
        if (expected.isObject()) {
            expected.properties().forEach(e -> {
                if (!e.getValue().isNull()) {
                    assertContains(actual.path(e.getKey()), e.getValue(), path + "." + e.getKey());
                }
            });
        } else if (expected.isArray()) {
            assertThat(actual.size()).as(path).isEqualTo(expected.size());
            for (int i = 0; i < expected.size(); i++) {
                assertContains(actual.get(i), expected.get(i), path + "[" + i + "]");
            }
        } else if (!(actual.isMissingNode() && (expected.asString("x").isEmpty() || expected.asDouble(1) == 0
                || expected.isBoolean() && !expected.asBoolean()))) {
            assertThat(actual).as(path).isEqualTo(expected);
        }
    }
}
