package io.reactiveinformer.codec;

import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Set;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;

/**
 * {@code OffsetDateTime} as the API server writes it. {@code metav1.Time} is RFC 3339 with whole
 * seconds ({@code 2024-05-01T10:00:00Z}); {@code metav1.MicroTime} always has six fraction digits
 * ({@code 2024-05-01T10:00:00.000000Z}). The models type both as {@code OffsetDateTime}, so the
 * MicroTime fields are known by name; elsewhere a value with a sub-second part keeps it.
 */
final class TimestampCodec {

    /** {@code DeclaringClassSimpleName.field} of every MicroTime field of the official models. */
    private static final Set<String> MICRO_TIME_FIELDS = Set.of(
            "CoreV1Event.eventTime", "CoreV1EventSeries.lastObservedTime",
            "EventsV1Event.eventTime", "EventsV1EventSeries.lastObservedTime",
            "V1LeaseSpec.acquireTime", "V1LeaseSpec.renewTime",
            "V1beta1LeaseCandidateSpec.pingTime", "V1beta1LeaseCandidateSpec.renewTime",
            "V1alpha2LeaseCandidateSpec.pingTime", "V1alpha2LeaseCandidateSpec.renewTime");

    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX");
    private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSXXX");

    private TimestampCodec() {
    }

    static final class Serializer extends ValueSerializer<OffsetDateTime> {
        private final boolean microTime;

        Serializer() {
            this(false);
        }

        private Serializer(boolean microTime) {
            this.microTime = microTime;
        }

        @Override
        public ValueSerializer<?> createContextual(SerializationContext ctxt, BeanProperty property) {
            if (property != null && property.getMember() != null) {
                String key = property.getMember().getDeclaringClass().getSimpleName() + "." + property.getName();
                if (MICRO_TIME_FIELDS.contains(key)) {
                    return new Serializer(true);
                }
            }
            return this;
        }

        @Override
        public void serialize(OffsetDateTime value, JsonGenerator gen, SerializationContext ctxt) {
            if (microTime) {
                gen.writeString(MICROS.format(value));
            } else if (value.getNano() == 0) {
                gen.writeString(SECONDS.format(value));
            } else {
                gen.writeString(DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(value));
            }
        }
    }

    static final class Deserializer extends ValueDeserializer<OffsetDateTime> {
        @Override
        public OffsetDateTime deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                return (OffsetDateTime) ctxt.handleUnexpectedToken(OffsetDateTime.class, p);
            }
            String text = p.getString();
            try {
                return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
            } catch (DateTimeParseException e) {
                return (OffsetDateTime) ctxt.handleWeirdStringValue(OffsetDateTime.class, text,
                        "not an RFC 3339 timestamp");
            }
        }
    }
}
