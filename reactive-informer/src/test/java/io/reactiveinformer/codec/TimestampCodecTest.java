package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The formatter-free parse of the API server's timestamps agrees with the ISO formatter on every text it takes. */
class TimestampCodecTest {

    private static OffsetDateTime iso(String text) {
        return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    }

    /** Parses {@code text} where the parser's buffer has it: between other characters. */
    private static OffsetDateTime parseUtc(String text) {
        char[] buffer = ("\"ts\":\"" + text + "\",").toCharArray();
        return TimestampCodec.parseUtc(buffer, 6, text.length());
    }

    @Property(tries = 2000)
    void agreesWithTheIsoFormatterOnTheServersForms(@ForAll @LongRange(min = -62_135_596_800L, max = 253_402_300_799L) long epochSecond,
                                                    @ForAll @IntRange(min = 0, max = 999_999_999) int nano,
                                                    @ForAll @IntRange(min = 0, max = 9) int fractionDigits) {
        OffsetDateTime instant = Instant.ofEpochSecond(epochSecond).atOffset(ZoneOffset.UTC);
        String text = instant.toLocalDateTime().withNano(0).toString();
        if (text.length() == 16) {
            text += ":00"; // LocalDateTime drops zero seconds
        }
        if (fractionDigits > 0) {
            text += "." + String.format("%09d", nano).substring(0, fractionDigits);
        }
        text += "Z";
        assertThat(parseUtc(text)).isEqualTo(iso(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2024-05-01T10:00:00Z", "2024-05-01T10:00:00.000000Z", "2024-02-29T23:59:59.5Z",
            "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z"})
    void serverFormsAreParsedLikeTheFormatterDoes(String text) {
        assertThat(parseUtc(text)).isNotNull().isEqualTo(iso(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2024-05-01T12:00:00+02:00", "2024-05-01t10:00:00z", "2024-05-01T10:00:00.1234567890Z",
            "+12024-05-01T10:00:00Z", "2024-05-01 10:00:00Z", "2024-05-01T10:00Z", "2024-05-01T10:00:00.Z"})
    void otherFormsAreLeftToTheFormatter(String text) {
        assertThat(parseUtc(text)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-05-01T24:00:00Z",
            "2024-05-01T23:59:60Z", "2024-05-32T00:00:00Z", "2024-O5-01T10:00:00Z"})
    void invalidTimestampsAreRejectedByBoth(String text) {
        assertThat(parseUtc(text)).isNull();
        assertThatThrownBy(() -> iso(text)).isInstanceOf(DateTimeParseException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2024-05-01T10:00:00Z", "2024-05-01T12:00:00+02:00", "2024-05-01T10:00:00.25+00:00"})
    void theDecoderGivesTheFormattersValueForEitherPath(String text) {
        KubernetesJson json = KubernetesJson.defaults();
        OffsetDateTime decoded = json.mapper().readValue("\"" + text + "\"", OffsetDateTime.class);
        assertThat(decoded).isEqualTo(iso(text));
    }
}
