package io.reactiveinformer.codec;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.custom.QuantityFormatException;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;

/**
 * {@code Quantity} as a string in its canonical suffixed form ({@code 500m}, {@code 128Mi}), which
 * is the form the API server writes. Numbers are accepted on read, as the API server accepts them.
 */
final class QuantityCodec {

    private QuantityCodec() {
    }

    static final class Serializer extends ValueSerializer<Quantity> {
        @Override
        public void serialize(Quantity value, JsonGenerator gen, SerializationContext ctxt) {
            gen.writeString(value.toSuffixedString());
        }
    }

    /**
     * Quantities parsed once per text. The official parser compiles regular expressions on every call, and a
     * cluster's objects repeat a few dozen quantities ({@code 100m}, {@code 128Mi}) endlessly: parse each text
     * once and share the (immutable) result, which also saves memory in caches. Thread-safe.
     */
    static final class Parsed {

        private static final int CACHE_LIMIT = 4096;
        private final ConcurrentHashMap<String, Quantity> parsed = new ConcurrentHashMap<>();

        /** @throws QuantityFormatException or {@code NumberFormatException} for a text that is not a quantity */
        Quantity parse(String text) {
            Quantity known = parsed.get(text);
            if (known != null) {
                return known;
            }
            Quantity quantity = Quantity.fromString(text);
            if (parsed.size() < CACHE_LIMIT) {
                parsed.putIfAbsent(text, quantity);
            }
            return quantity;
        }
    }

    static final class Deserializer extends ValueDeserializer<Quantity> {

        private final Parsed parsed = new Parsed();

        @Override
        public Quantity deserialize(JsonParser p, DeserializationContext ctxt) {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
                String text = p.getString();
                try {
                    return parsed.parse(text);
                } catch (QuantityFormatException | NumberFormatException e) {
                    return (Quantity) ctxt.handleWeirdStringValue(Quantity.class, text, "not a quantity: %s",
                            e.getMessage());
                }
            }
            return (Quantity) ctxt.handleUnexpectedToken(Quantity.class, p);
        }
    }
}
