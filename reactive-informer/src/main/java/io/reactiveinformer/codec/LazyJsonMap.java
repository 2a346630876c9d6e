package io.reactiveinformer.codec;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonGeneratorBase;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;

/**
 * A JSON object kept as its bytes, read as a {@code Map} the first time anything asks: how a decoded
 * {@code managedFields[].fieldsV1} is held. The API server sends every object's field sets, an informer's
 * cache keeps them, and almost nobody reads them. A pod's managedFields were a quarter of its heap in the
 * cache, most of it these maps of maps; as bytes they take what their JSON takes (client-go keeps
 * {@code FieldsV1} as raw bytes for the same reason). Encoding writes the bytes back as they were read until the map is first used.
 *
 * <p>Once read, the map is the {@link java.util.LinkedHashMap} the plain decoding gives (document order,
 * mutable, with shared immutable empty leaves, see {@link UntypedValueDeserializer}), and everything,
 * encoding included, goes through it: a change made to it is what gets encoded. Equality and hash code
 * are a {@code Map}'s. Thread-safe to read from several threads (the model objects it sits in are not
 * safe to change from several): racing first reads may each parse, and any of their equal results is kept.
 */
final class LazyJsonMap extends AbstractMap<String, Object> {

    private static final JsonFactory FACTORY = new JsonFactory();

    private final byte[] json;
    private final UntypedValueDeserializer parser;
    private volatile Map<String, Object> map;

    private LazyJsonMap(byte[] json, UntypedValueDeserializer parser) {
        this.json = json;
        this.parser = parser;
    }

    /**
     * Copies the object {@code p} is at (its {@code START_OBJECT}, or the first name when a caller took the
     * opening brace) and leaves {@code p} at its {@code END_OBJECT}; {@code parser} reads the map when asked.
     */
    static LazyJsonMap read(JsonParser p, UntypedValueDeserializer parser) {
        FlushedBytes bytes = new FlushedBytes();
        try (JsonGenerator copy = FACTORY.createGenerator(ObjectWriteContext.empty(), bytes)) {
            if (p.currentToken() == JsonToken.START_OBJECT) {
                copy.copyCurrentStructure(p);
            } else {
                copy.writeStartObject();
                for (JsonToken t = p.currentToken(); t == JsonToken.PROPERTY_NAME; t = p.nextToken()) {
                    copy.copyCurrentStructure(p); // the name and its value
                }
                copy.writeEndObject();
            }
        }
        return new LazyJsonMap(bytes.bytes, parser);
    }

    /**
     * What a generator flushes, kept at its exact length. The generator buffers its output (8,000 bytes) and
     * flushes on close, so a field set is usually one write, copied once; a growing builder would allocate
     * its blocks and then the copy, about twice the field set's bytes more, on every decoded object.
     */
    private static final class FlushedBytes extends OutputStream {

        byte[] bytes = new byte[0];

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (bytes.length == 0) {
                bytes = Arrays.copyOfRange(b, off, off + len);
            } else {
                byte[] joined = Arrays.copyOf(bytes, bytes.length + len);
                System.arraycopy(b, off, joined, bytes.length, len);
                bytes = joined;
            }
        }
    }

    /** The object {@code json} holds (not copied: the caller hands it over), read by {@code parser} when asked. */
    static LazyJsonMap of(byte[] json, UntypedValueDeserializer parser) {
        return new LazyJsonMap(json, parser);
    }

    private Map<String, Object> map() {
        Map<String, Object> m = map;
        if (m == null) {
            m = parser.parse(json);
            map = m;
        }
        return m;
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return map().entrySet();
    }

    @Override
    public int size() {
        return map().size();
    }

    @Override
    public Object get(Object key) {
        return map().get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return map().containsKey(key);
    }

    @Override
    public Object put(String key, Object value) {
        return map().put(key, value);
    }

    @Override
    public Object remove(Object key) {
        return map().remove(key);
    }

    @Override
    public void clear() {
        map().clear();
    }

    @Override
    public boolean equals(Object o) {
        // two unread copies of the same bytes (a relist of an unchanged object) are equal without parsing
        if (o instanceof LazyJsonMap other && map == null && other.map == null && Arrays.equals(json, other.json)) {
            return true;
        }
        return super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    /**
     * The bytes as read while nothing has read the map, into JSON text; the map otherwise, and always into
     * anything else (another format, or the token buffers and trees of {@code convertValue} and
     * {@code valueToTree}, which would hold raw text as one opaque value rather than as the object).
     */
    static final class Serializer extends ValueSerializer<LazyJsonMap> {

        @Override
        public void serialize(LazyJsonMap value, JsonGenerator gen, SerializationContext ctxt) {
            if (value.map == null && gen instanceof JsonGeneratorBase) {
                gen.writeRawValue(new String(value.json, StandardCharsets.UTF_8));
            } else {
                ctxt.writeValue(gen, value.map());
            }
        }
    }
}
