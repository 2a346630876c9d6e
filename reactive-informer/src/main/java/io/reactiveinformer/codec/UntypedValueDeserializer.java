package io.reactiveinformer.codec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * {@code Object}-typed values ({@code managedFields[].fieldsV1}, a CRD's free-form fields) as
 * Jackson binds them, {@link LinkedHashMap}s in document order, {@link ArrayList}s and scalars, but
 * with each map's hash table sized to its entries: Jackson starts every map at 16 buckets, and a
 * {@code fieldsV1} tree is mostly maps of one to four entries, one per pod field the manager owns.
 *
 * <p>A {@code V1ManagedFieldsEntry.fieldsV1} object is kept as its bytes, a {@link LazyJsonMap}, and read
 * into maps only when used. Then its many {@code {}} leaves (set members in the server-side apply field
 * set: "this field is owned") are one shared immutable empty map, not one {@code LinkedHashMap} each.
 * The field set is the API server's record, replaced as a whole, never edited in place; equality and
 * encoding are unchanged.
 */
final class UntypedValueDeserializer extends ValueDeserializer<Object> {

    private static final String FIELDS_V1 = "V1ManagedFieldsEntry.fieldsV1";

    private final StringValues strings;
    /** For fieldsV1: leaves share one empty map. */
    private final boolean shareEmptyMaps;
    /** For fieldsV1 in a model: an object is kept as bytes ({@link LazyJsonMap}), read by {@link #parse}. */
    private final boolean keepBytes;
    private volatile ObjectReader keptBytesReader;

    UntypedValueDeserializer(StringValues strings) {
        this(strings, false, false);
    }

    /** What decodes a {@code fieldsV1} in a model, for the protobuf decoders, which get its JSON as bytes. */
    static UntypedValueDeserializer forFieldsV1(StringValues strings) {
        return new UntypedValueDeserializer(strings, true, true);
    }

    private UntypedValueDeserializer(StringValues strings, boolean shareEmptyMaps, boolean keepBytes) {
        this.strings = strings;
        this.shareEmptyMaps = shareEmptyMaps;
        this.keepBytes = keepBytes;
    }

    @Override
    public ValueDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property) {
        if (property != null && property.getMember() != null
                && FIELDS_V1.equals(property.getMember().getDeclaringClass().getSimpleName() + "." + property.getName())) {
            return new UntypedValueDeserializer(strings, true, true);
        }
        return this;
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) {
        JsonToken token = p.currentToken();
        if (keepBytes && (token == JsonToken.START_OBJECT || token == JsonToken.PROPERTY_NAME)) {
            return LazyJsonMap.read(p, this);
        }
        return value(p, ctxt, token);
    }

    /**
     * The maps a {@link LazyJsonMap} kept as {@code json}, as this would have decoded them in place; on a
     * mapper of its own that has only this decoding (built on the first call), since the bytes are
     * read after the decoding that kept them is over.
     */
    Map<String, Object> parse(byte[] json) {
        ObjectReader reader = keptBytesReader;
        if (reader == null) {
            reader = JsonMapper.builder()
                    .addModule(new SimpleModule("fieldsV1").addDeserializer(Object.class,
                            new UntypedValueDeserializer(strings, shareEmptyMaps, false)))
                    .build()
                    .readerFor(Object.class);
            keptBytesReader = reader;
        }
        return (Map<String, Object>) reader.readValue(json);
    }

    @Override
    public Object getNullValue(DeserializationContext ctxt) {
        return null;
    }

    private Object value(JsonParser p, DeserializationContext ctxt, JsonToken token) {
        switch (token) {
            case START_OBJECT:
                return map(p, ctxt, p.nextToken());
            case PROPERTY_NAME:
                // a caller that consumed START_OBJECT (polymorphic handling, buffering) hands us the first name
                return map(p, ctxt, token);
            case START_ARRAY:
                return list(p, ctxt);
            case VALUE_STRING:
                return strings.canonical(p);
            case VALUE_NUMBER_INT:
                if (ctxt.isEnabled(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)) {
                    return p.getBigIntegerValue();
                }
                if (ctxt.isEnabled(DeserializationFeature.USE_LONG_FOR_INTS)
                        && p.getNumberType() == JsonParser.NumberType.INT) {
                    return p.getLongValue();
                }
                return p.getNumberValue();
            case VALUE_NUMBER_FLOAT:
                return ctxt.isEnabled(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                        ? p.getDecimalValue() : (Object) p.getDoubleValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            case VALUE_EMBEDDED_OBJECT:
                return p.getEmbeddedObject();
            default:
                return ctxt.handleUnexpectedToken(Object.class, p);
        }
    }

    /** Reads entries from {@code token} (a name or the closing brace) to the end of the object. */
    private Map<String, Object> map(JsonParser p, DeserializationContext ctxt, JsonToken token) {
        if (token == JsonToken.END_OBJECT) {
            return shareEmptyMaps ? Collections.emptyMap() : new LinkedHashMap<>(2);
        }
        Object[] entries = new Object[8];
        int size = 0;
        for (; token == JsonToken.PROPERTY_NAME; token = p.nextToken()) {
            if (size == entries.length) {
                entries = Arrays.copyOf(entries, size * 2);
            }
            entries[size++] = p.currentName();
            entries[size++] = value(p, ctxt, p.nextToken());
        }
        if (token != JsonToken.END_OBJECT) {
            return (Map<String, Object>) ctxt.handleUnexpectedToken(Map.class, p);
        }
        int count = size / 2;
        Map<String, Object> map = new LinkedHashMap<>((int) Math.ceil(count / 0.75), 0.75f);
        for (int i = 0; i < size; i += 2) {
            map.put((String) entries[i], entries[i + 1]);
        }
        return map;
    }

    private List<Object> list(JsonParser p, DeserializationContext ctxt) {
        List<Object> list = new ArrayList<>();
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (token == null) {
                return (List<Object>) ctxt.handleUnexpectedToken(List.class, p);
            }
            list.add(value(p, ctxt, token));
        }
        return list;
    }
}
