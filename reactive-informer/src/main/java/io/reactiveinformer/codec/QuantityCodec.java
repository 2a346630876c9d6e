package io.reactiveinformer.codec;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.custom.QuantityFormatException;
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
        @Override
        public Quantity deserialize(JsonParser p, DeserializationContext ctxt) {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
                String text = p.getString();
                try {
                    return Quantity.fromString(text);
                } catch (QuantityFormatException | NumberFormatException e) {
                    return (Quantity) ctxt.handleWeirdStringValue(Quantity.class, text, "not a quantity: %s",
                            e.getMessage());
                }
            }
            return (Quantity) ctxt.handleUnexpectedToken(Quantity.class, p);
        }
    }
}
