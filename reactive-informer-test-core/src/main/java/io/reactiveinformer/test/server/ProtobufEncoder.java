package io.reactiveinformer.test.server;

import io.reactiveinformer.test.server.ProtobufSchema.Field;
import io.reactiveinformer.test.server.ProtobufSchema.Message;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.MissingNode;

/**
 * Encodes the server's JSON trees as kube-apiserver's protobuf, driven by the {@link ProtobufSchema}: the bytes
 * Go's generated marshalers write for the same object. Fields go in ascending number order; a field Go holds by
 * value (not a pointer) is written even when zero, or absent from the JSON, as Go writes its zero value; a
 * pointer, a slice or a map only when set; map entries sorted by key (by their UTF-8 bytes, as Go sorts); the
 * types with a wire form of their own as apimachinery writes them ({@code Time} as seconds and zero nanos, and
 * nothing when zero; {@code MicroTime} with microseconds; {@code Quantity} as its string; {@code IntOrString}
 * as type, int and string; {@code RawExtension} and {@code FieldsV1} as their compact JSON). Objects go in kube-apiserver's envelope: {@code k8s\0}, then a {@code runtime.Unknown} with the
 * object's apiVersion and kind, its bytes, and empty content encoding and type; watch events in frames of a
 * 4-byte big-endian length and a {@code metav1.WatchEvent} whose object holds an enveloped object.
 *
 * <p>Threading: stateless beyond the immutable schema; any thread.
 */
final class ProtobufEncoder {

    static final byte[] MAGIC = {'k', '8', 's', 0};

    private final ProtobufSchema schema;
    private final ObjectMapper mapper;

    ProtobufEncoder(ProtobufSchema schema, ObjectMapper mapper) {
        this.schema = schema;
        this.mapper = mapper;
    }

    ProtobufSchema schema() {
        return schema;
    }

    /** Whether objects of this apiVersion and kind have a message, i.e. can be written in protobuf. */
    boolean covers(String apiVersion, String kind) {
        return schema.kind(apiVersion, kind) != null;
    }

    /**
     * {@code object} in the envelope, under {@code apiVersion} and {@code kind} (a list's items carry no type
     * of their own on the wire).
     *
     * @throws IllegalArgumentException when no message covers the kind
     */
    byte[] envelope(String apiVersion, String kind, JsonNode object) {
        Message message = schema.kind(apiVersion, kind);
        if (message == null) {
            throw new IllegalArgumentException("no protobuf message for " + apiVersion + " " + kind);
        }
        Out typeMeta = new Out();
        typeMeta.string(1, apiVersion);
        typeMeta.string(2, kind);
        Out unknown = new Out();
        unknown.bytes(1, typeMeta.toByteArray());
        unknown.bytes(2, message(message, object));
        unknown.string(3, "");
        unknown.string(4, "");
        Out out = new Out();
        out.raw(MAGIC);
        out.raw(unknown.toByteArray());
        return out.toByteArray();
    }

    /** {@code object} in the envelope, under its own apiVersion and kind. */
    byte[] envelope(JsonNode object) {
        return envelope(object.path("apiVersion").asString(""), object.path("kind").asString(""), object);
    }

    /** One watch frame: the length, then a {@code WatchEvent} of {@code type} holding {@code envelopedObject}. */
    static byte[] watchFrame(String type, byte[] envelopedObject) {
        Out raw = new Out();
        raw.bytes(1, envelopedObject);
        Out event = new Out();
        event.string(1, type);
        event.bytes(2, raw.toByteArray());
        byte[] body = event.toByteArray();
        byte[] frame = new byte[4 + body.length];
        frame[0] = (byte) (body.length >>> 24);
        frame[1] = (byte) (body.length >>> 16);
        frame[2] = (byte) (body.length >>> 8);
        frame[3] = (byte) body.length;
        System.arraycopy(body, 0, frame, 4, body.length);
        return frame;
    }

    /** The bytes of {@code message} for {@code object} (a missing node is the message's zero value). */
    byte[] message(Message message, JsonNode object) {
        Out out = new Out();
        fields(message, object, out);
        return out.toByteArray();
    }

    private void fields(Message message, JsonNode object, Out out) {
        if (message.listLike() && object.isArray()) {
            repeated(message.fields().get(0), object, out);
            return;
        }
        for (Field field : message.fields()) {
            if (field.inline()) {
                // the embedded struct's fields are this object's own in JSON
                out.bytes(field.number(), message(schema.message(field.type()), object));
                continue;
            }
            JsonNode value = object.path(field.json());
            boolean set = !value.isMissingNode() && !value.isNull();
            switch (field.label()) {
                case REPEATED -> repeated(field, value, out);
                case MAP -> map(field, value, out);
                case OPTIONAL -> {
                    if (set || !field.pointer()) {
                        single(field.number(), field.type(), set ? value : MissingNode.getInstance(), out);
                    }
                }
            }
        }
    }

    private void repeated(Field field, JsonNode values, Out out) {
        for (JsonNode value : values) {
            if (!value.isNull()) {
                single(field.number(), field.type(), value, out);
            }
        }
    }

    private void map(Field field, JsonNode entries, Out out) {
        if (!entries.isObject()) {
            return;
        }
        List<Map.Entry<String, JsonNode>> sorted = new ArrayList<>(entries.properties());
        sorted.sort((a, b) -> Arrays.compareUnsigned(a.getKey().getBytes(StandardCharsets.UTF_8),
                b.getKey().getBytes(StandardCharsets.UTF_8)));
        for (Map.Entry<String, JsonNode> entry : sorted) {
            Out pair = new Out();
            pair.string(1, entry.getKey());
            JsonNode value = entry.getValue();
            // a nil []byte value is left out; every other value is written, zero or not
            if (!(value.isNull() && field.valueType().equals("bytes"))) {
                single(2, field.valueType(), value.isNull() ? MissingNode.getInstance() : value, pair);
            }
            out.bytes(field.number(), pair.toByteArray());
        }
    }

    /** One value of {@code type} as field {@code number}; a missing {@code value} is the type's zero value. */
    private void single(int number, String type, JsonNode value, Out out) {
        switch (type) {
            case "string" -> out.string(number, value.asString(""));
            case "bytes" -> out.bytes(number, Base64.getDecoder().decode(value.asString("")));
            case "bool" -> out.varint(number, value.asBoolean(false) ? 1 : 0);
            case "int32", "int64" -> out.varint(number, value.asLong(0));
            case "double" -> out.fixed64(number, Double.doubleToRawLongBits(value.asDouble(0)));
            case ProtobufSchema.TIME -> out.bytes(number, timestamp(value, false));
            case ProtobufSchema.MICRO_TIME -> out.bytes(number, timestamp(value, true));
            case ProtobufSchema.QUANTITY -> {
                Out q = new Out();
                q.string(1, value.isMissingNode() ? "0" : value.asString());
                out.bytes(number, q.toByteArray());
            }
            case ProtobufSchema.INT_OR_STRING -> {
                Out v = new Out();
                boolean string = value.isString();
                v.varint(1, string ? 1 : 0);
                v.varint(2, string ? 0 : value.asInt(0));
                v.string(3, string ? value.asString() : "");
                out.bytes(number, v.toByteArray());
            }
            case ProtobufSchema.RAW_EXTENSION, ProtobufSchema.FIELDS_V1 -> {
                Out raw = new Out();
                if (!value.isMissingNode()) {
                    raw.bytes(1, mapper.writeValueAsBytes(value));
                }
                out.bytes(number, raw.toByteArray());
            }
            default -> {
                Message message = schema.message(type);
                if (message == null) {
                    throw new IllegalStateException("no message " + type + " in the protobuf schema");
                }
                out.bytes(number, message(message, value));
            }
        }
    }

    /** A {@code Timestamp}: nothing for a zero time; seconds, and nanos only for a MicroTime. */
    private static byte[] timestamp(JsonNode value, boolean micro) {
        Out t = new Out();
        if (value.isMissingNode() || value.asString("").isEmpty()) {
            return t.toByteArray();
        }
        OffsetDateTime time = OffsetDateTime.parse(value.asString());
        t.varint(1, time.toEpochSecond());
        t.varint(2, micro ? time.getNano() / 1000 * 1000 : 0);
        return t.toByteArray();
    }

    /** A growable buffer with protobuf's field writers. */
    static final class Out {
        private byte[] buf = new byte[64];
        private int size;

        void varint(int number, long value) {
            tag(number, 0);
            rawVarint(value);
        }

        void fixed64(int number, long value) {
            tag(number, 1);
            ensure(8);
            for (int i = 0; i < 8; i++) {
                buf[size++] = (byte) (value >>> (8 * i));
            }
        }

        void string(int number, String value) {
            bytes(number, value.getBytes(StandardCharsets.UTF_8));
        }

        void bytes(int number, byte[] value) {
            tag(number, 2);
            rawVarint(value.length);
            raw(value);
        }

        void raw(byte[] bytes) {
            ensure(bytes.length);
            System.arraycopy(bytes, 0, buf, size, bytes.length);
            size += bytes.length;
        }

        private void tag(int number, int wireType) {
            rawVarint((long) number << 3 | wireType);
        }

        private void rawVarint(long value) {
            ensure(10);
            while ((value & ~0x7FL) != 0) {
                buf[size++] = (byte) ((value & 0x7F) | 0x80);
                value >>>= 7;
            }
            buf[size++] = (byte) value;
        }

        private void ensure(int more) {
            if (size + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
            }
        }

        byte[] toByteArray() {
            return Arrays.copyOf(buf, size);
        }
    }
}
