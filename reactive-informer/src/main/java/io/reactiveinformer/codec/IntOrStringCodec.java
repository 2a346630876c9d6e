package io.reactiveinformer.codec;

import io.kubernetes.client.custom.IntOrString;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;

/** {@code IntOrString} as the API server writes it: a JSON number or a JSON string. */
final class IntOrStringCodec {

    private IntOrStringCodec() {
    }

    static final class Serializer extends ValueSerializer<IntOrString> {
        @Override
        public void serialize(IntOrString value, JsonGenerator gen, SerializationContext ctxt) {
            if (value.isInteger()) {
                gen.writeNumber(value.getIntValue());
            } else {
                gen.writeString(value.getStrValue());
            }
        }
    }

    static final class Deserializer extends ValueDeserializer<IntOrString> {
        @Override
        public IntOrString deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() == JsonToken.VALUE_NUMBER_INT) {
                return new IntOrString(p.getIntValue());
            }
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                return new IntOrString(p.getString());
            }
            return (IntOrString) ctxt.handleUnexpectedToken(IntOrString.class, p);
        }
    }
}
