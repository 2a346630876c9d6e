package io.reactiveinformer.client;

import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.ByteBuffer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes one object (a GET, create, replace or patch response) from byte chunks split anywhere:
 * {@link ObjectBytes} collects its bytes as they arrive and {@link #end} binds them on Jackson's
 * blocking path.
 *
 * <p>Not thread-safe: feed it from one thread at a time. Create one per response with
 * {@code new ValueDecoder<>(json, type, source)}.
 *
 * @param <T> the value type
 */
final class ValueDecoder<T> {

    private final ObjectReader reader;
    private final Class<T> type;
    private final String source;
    private final ObjectBytes value = new ObjectBytes();
    private boolean started;
    private byte[] complete;
    private long offset;

    ValueDecoder(KubernetesJson json, Class<T> type, String source) {
        this.reader = json.reader(type);
        this.type = type;
        this.source = source;
    }

    /**
     * Feeds the next bytes.
     *
     * @throws io.reactiveinformer.api.DecodeException on content other than one object
     */
    void feed(ByteBuffer bytes) {
        while (bytes.hasRemaining()) {
            if (value.open()) {
                int before = bytes.position();
                if (value.scan(bytes)) {
                    complete = value.take();
                }
                offset += bytes.position() - before;
                continue;
            }
            byte b = bytes.get();
            if (b == '{' && !started) {
                started = true;
                value.start(offset);
            } else if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                throw error(started ? "unexpected content after the " + type.getSimpleName()
                        : "expected a " + type.getSimpleName() + " object", null);
            }
            offset++;
        }
    }

    /**
     * Ends the input and returns the value.
     *
     * @throws io.reactiveinformer.api.DecodeException if the input ended early, was empty or is malformed
     */
    T end() {
        if (value.open()) {
            throw error("input ended inside the " + type.getSimpleName(), null);
        }
        if (complete == null) {
            throw error("the response held no " + type.getSimpleName(), null);
        }
        try {
            return reader.readValue(complete);
        } catch (StreamReadException e) {
            throw error("malformed JSON: " + e.getOriginalMessage(), e);
        } catch (JacksonException e) {
            throw error("cannot decode " + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
    }

    private DecodeException error(String problem, Throwable cause) {
        return new DecodeException(source + ": " + problem + " (at byte " + offset + ")", cause);
    }
}
