package io.reactiveinformer.client;

import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.ByteBuffer;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Decodes one JSON value (a GET, create, replace or patch response) from byte chunks split anywhere.
 *
 * <p>Not thread-safe: feed it from one thread at a time. Create one per response with
 * {@code new ValueDecoder<>(json, type, source)}.
 *
 * @param <T> the value type
 */
final class ValueDecoder<T> extends JsonStreamDecoder {

    private final ObjectReader reader;
    private final Class<T> type;
    private boolean started;
    private T value;

    ValueDecoder(KubernetesJson json, Class<T> type, String source) {
        super(json, source);
        this.reader = json.reader(type);
        this.type = type;
    }

    /**
     * Feeds the next bytes.
     *
     * @throws io.reactiveinformer.api.DecodeException on malformed input
     */
    void feed(ByteBuffer bytes) {
        feedBuffer(bytes);
    }

    /**
     * Ends the input and returns the value.
     *
     * @throws io.reactiveinformer.api.DecodeException if the input ended early or was empty
     */
    T end() {
        endInput();
        if (value == null) {
            throw decodeError("the response held no " + type.getSimpleName(), null);
        }
        return value;
    }

    @Override
    void onToken(JsonParser parser, JsonToken token) {
        if (started) {
            throw decodeError("unexpected content after the " + type.getSimpleName() + ": " + token, null);
        }
        started = true;
        captureValue(token);
    }

    @Override
    void onCaptured(TokenBuffer captured) {
        value = bind(reader, captured, type.getSimpleName());
    }

    @Override
    boolean atValueBoundary() {
        return true;
    }

    @Override
    String openStructure() {
        return "the " + type.getSimpleName();
    }
}
