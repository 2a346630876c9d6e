package io.reactiveinformer.codec;

import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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

    private static final int[] NANOS_PER_DIGIT = {100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1};

    private TimestampCodec() {
    }

    /**
     * The {@code length} characters of {@code chars} from {@code offset} (a parser's buffer), in the forms
     * the API server writes, {@code uuuu-MM-ddTHH:mm:ssZ} with an optional fraction of one to nine digits,
     * parsed without a formatter; {@code null} for any other text, which then goes to the ISO formatter.
     * Same result as {@code OffsetDateTime.parse(text, ISO_OFFSET_DATE_TIME)} for every text it accepts (an
     * invalid date or time is left to the formatter too, to fail the same way). A pod carries a dozen
     * timestamps, and the formatter's general parse was a sixth of the CPU time of decoding a 100k-pod list.
     */
    static OffsetDateTime parseUtc(char[] chars, int offset, int length) {
        if (length < 20 || chars[offset + length - 1] != 'Z' || chars[offset + 4] != '-' || chars[offset + 7] != '-'
                || chars[offset + 10] != 'T' || chars[offset + 13] != ':' || chars[offset + 16] != ':') {
            return null;
        }
        int year = digits(chars, offset, 4);
        int month = digits(chars, offset + 5, 2);
        int day = digits(chars, offset + 8, 2);
        int hour = digits(chars, offset + 11, 2);
        int minute = digits(chars, offset + 14, 2);
        int second = digits(chars, offset + 17, 2);
        int nano = 0;
        if (length > 20) {
            int fractionDigits = length - 21;
            if (chars[offset + 19] != '.' || fractionDigits < 1 || fractionDigits > 9) {
                return null;
            }
            int fraction = digits(chars, offset + 20, fractionDigits);
            nano = fraction < 0 ? -1 : fraction * NANOS_PER_DIGIT[fractionDigits - 1];
        }
        if ((year | month | day | hour | minute | second | nano) < 0) {
            return null;
        }
        try {
            return OffsetDateTime.of(year, month, day, hour, minute, second, nano, ZoneOffset.UTC);
        } catch (DateTimeException invalid) {
            return null;
        }
    }

    /** The decimal value of {@code count} ASCII digits from {@code from}; -1 if one is not a digit. */
    private static int digits(char[] chars, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            char c = chars[i];
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
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
            // read in the parser's buffer: the text of a timestamp is garbage once parsed, a dozen per pod
            OffsetDateTime utc = parseUtc(p.getStringCharacters(), p.getStringOffset(), p.getStringLength());
            if (utc != null) {
                return utc;
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
