package io.reactiveinformer.codec;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import java.io.IOException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The protobuf wire form of one message held in a byte array, as the generated decoders ({@code Proto*}
 * classes, generated from the vendored {@code .proto} files) read it: tags, scalars, nested messages
 * ({@link #begin()} before a generated {@code read*} method, which ends with {@link #end(int)}), and the Kubernetes types that
 * have a wire form of their own ({@code Time}, {@code MicroTime}, {@code Quantity}, {@code IntOrString},
 * {@code RawExtension}, {@code FieldsV1}). Strings are read in place and made canonical (see
 * {@link StringValues}), so a value seen before costs no allocation.
 *
 * <p>Threading: one instance per decode, used by one thread.
 */
final class ProtoInput {

    /** {@code metav1.Time}'s and {@code MicroTime}'s {@code seconds} and {@code nanos} fields. */
    private static final int SECONDS = 1 << 3;
    private static final int NANOS = 2 << 3;
    /** {@code resource.Quantity}'s only field, {@code string}. */
    private static final int QUANTITY_STRING = 1 << 3 | 2;
    /** {@code intstr.IntOrString}: {@code type} (0 int, 1 string), {@code intVal}, {@code strVal}. */
    private static final int INT_OR_STRING_TYPE = 1 << 3;
    private static final int INT_OR_STRING_INT = 2 << 3;
    private static final int INT_OR_STRING_STR = 3 << 3 | 2;
    /** {@code runtime.RawExtension}'s and {@code metav1.FieldsV1}'s only field, the raw bytes. */
    private static final int RAW = 1 << 3 | 2;

    /** The limit of an input nothing has been entered in: what the generated readers restore at its end. */
    static final int NO_LIMIT = Integer.MAX_VALUE;

    /** Reads one item of a {@link #list}. */
    @FunctionalInterface
    interface Item<T> {
        T read(ProtoInput in) throws IOException;
    }

    private final byte[] bytes;
    private final int offset;
    private final CodedInputStream in;
    private final ProtobufCodec codec;

    ProtoInput(byte[] bytes, int offset, int length, ProtobufCodec codec) {
        this.bytes = bytes;
        this.offset = offset;
        this.in = CodedInputStream.newInstance(bytes, offset, length);
        this.codec = codec;
    }

    /** Offset in the array of the next byte to read: what a decode error names. */
    int position() {
        return offset + in.getTotalBytesRead();
    }

    /** The next field's tag, 0 at the end of the message (or of the enclosing {@link #begin()}). */
    int tag() throws IOException {
        return in.readTag();
    }

    /** Skips the field {@code tag} introduced: unknown fields, and those no model property takes. */
    void skip(int tag) throws IOException {
        if (!in.skipField(tag)) {
            throw new InvalidProtocolBufferException("an end-group tag outside a group");
        }
    }

    /** Enters a length-delimited field: returns what {@link #end(int)} restores once it has been read. */
    int begin() throws IOException {
        return in.pushLimit(in.readRawVarint32());
    }

    void end(int limit) {
        in.popLimit(limit);
    }

    /**
     * A message whose only field is a repeated one, {@code tag}: a list in the models (as in JSON), e.g.
     * {@code authentication.v1.ExtraValue}.
     */
    <T> List<T> list(int tag, Item<T> item) throws IOException {
        int limit = begin();
        List<T> list = new ArrayList<>();
        for (int t = tag(); t != 0; t = tag()) {
            if (t == tag) {
                list.add(item.read(this));
            } else {
                skip(t);
            }
        }
        end(limit);
        return list;
    }

    /**
     * A message of no fields where the model has an {@code Object} (an empty Go struct, e.g. a scheduling
     * policy chosen by its presence): the empty map the JSON path makes of its {@code {}}.
     */
    Object emptyObject() throws IOException {
        int limit = begin();
        for (int tag = tag(); tag != 0; tag = tag()) {
            skip(tag);
        }
        end(limit);
        return new LinkedHashMap<String, Object>(2);
    }

    boolean atEnd() throws IOException {
        return in.isAtEnd();
    }

    String string() throws IOException {
        int length = in.readRawVarint32();
        int at = position();
        in.skipRawBytes(length); // checks the length against what is left
        return codec.strings.canonical(bytes, at, length);
    }

    int int32() throws IOException {
        return in.readInt32();
    }

    long int64() throws IOException {
        return in.readInt64();
    }

    boolean bool() throws IOException {
        return in.readBool();
    }

    double float64() throws IOException {
        return in.readDouble();
    }

    byte[] bytes() throws IOException {
        int length = in.readRawVarint32();
        int at = position();
        in.skipRawBytes(length);
        return Arrays.copyOfRange(bytes, at, at + length);
    }

    /** A {@code metav1.Time}: whole seconds, as its JSON form has them; the zero time (empty) is null. */
    OffsetDateTime time() throws IOException {
        return timestamp(false);
    }

    /** A {@code metav1.MicroTime}: microseconds, as its JSON form has them; the zero time (empty) is null. */
    OffsetDateTime microTime() throws IOException {
        return timestamp(true);
    }

    private OffsetDateTime timestamp(boolean micros) throws IOException {
        int limit = begin();
        if (in.isAtEnd()) {
            end(limit);
            return null;
        }
        long seconds = 0;
        int nanos = 0;
        for (int tag = tag(); tag != 0; tag = tag()) {
            if (tag == SECONDS) {
                seconds = in.readInt64();
            } else if (tag == NANOS) {
                nanos = in.readInt32();
            } else {
                skip(tag);
            }
        }
        end(limit);
        long fraction = micros ? nanos - nanos % 1000 : 0;
        // not ofInstant: on Java 17 it asks the offset for its rules, a new ZoneRules per timestamp
        return OffsetDateTime.of(LocalDateTime.ofEpochSecond(seconds, (int) fraction, ZoneOffset.UTC), ZoneOffset.UTC);
    }

    Quantity quantity() throws IOException {
        int limit = begin();
        String text = "";
        for (int tag = tag(); tag != 0; tag = tag()) {
            if (tag == QUANTITY_STRING) {
                text = string();
            } else {
                skip(tag);
            }
        }
        end(limit);
        return codec.quantities.parse(text);
    }

    IntOrString intOrString() throws IOException {
        int limit = begin();
        long type = 0;
        int intValue = 0;
        String stringValue = "";
        for (int tag = tag(); tag != 0; tag = tag()) {
            switch (tag) {
                case INT_OR_STRING_TYPE -> type = in.readInt64();
                case INT_OR_STRING_INT -> intValue = in.readInt32();
                case INT_OR_STRING_STR -> stringValue = string();
                default -> skip(tag);
            }
        }
        end(limit);
        return type == 1 ? new IntOrString(stringValue) : new IntOrString(intValue);
    }

    /**
     * A {@code runtime.RawExtension} (the models' {@code Object}-typed embedded objects): its raw bytes are
     * the object's JSON, read as the JSON path reads a free-form value. Null when empty.
     */
    Object rawExtension() throws IOException {
        byte[] raw = raw();
        return raw == null ? null : codec.untyped(raw);
    }

    /** A {@code metav1.FieldsV1}: its JSON bytes kept, as the JSON path keeps them (a {@link LazyJsonMap}). */
    Object fieldsV1() throws IOException {
        byte[] raw = raw();
        return raw == null ? null : LazyJsonMap.of(raw, codec.fieldsV1);
    }

    private byte[] raw() throws IOException {
        int limit = begin();
        byte[] raw = null;
        for (int tag = tag(); tag != 0; tag = tag()) {
            if (tag == RAW) {
                raw = bytes();
            } else {
                skip(tag);
            }
        }
        end(limit);
        if (raw != null && ProtobufEnvelope.hasMagic(raw, 0, raw.length)) {
            throw new InvalidProtocolBufferException("an embedded object in protobuf, where JSON was expected");
        }
        return raw == null || raw.length == 0 ? null : raw;
    }
}
