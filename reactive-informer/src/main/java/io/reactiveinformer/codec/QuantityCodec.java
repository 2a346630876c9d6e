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

    static final class Deserializer extends ValueDeserializer<Quantity> {

        /**
         * The official parser compiles regular expressions on every call, and a cluster's objects
         * repeat a few dozen quantities ({@code 100m}, {@code 128Mi}) endlessly: parse each text once
         * and share the (immutable) result, which also saves memory in caches.
         */
        private static final int CACHE_LIMIT = 4096;
        private final ConcurrentHashMap<String, Quantity> parsed = new ConcurrentHashMap<>();

        @Override
        public Quantity deserialize(JsonParser p, DeserializationContext ctxt) {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
                String text = p.getString();
                Quantity known = parsed.get(text);
                if (known != null) {
                    return known;
                }
                try {
                    Quantity quantity = Quantity.fromString(text);
                    if (parsed.size() < CACHE_LIMIT) {
                        parsed.putIfAbsent(text, quantity);
                    }
                    return quantity;
                } catch (QuantityFormatException | NumberFormatException e) {
                    return (Quantity) ctxt.handleWeirdStringValue(Quantity.class, text, "not a quantity: %s",
                            e.getMessage());
                }
            }
            return (Quantity) ctxt.handleUnexpectedToken(Quantity.class, p);
        }
    }
}
