package io.reactiveinformer.client;

import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.ByteBuffer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.async.ByteBufferFeeder;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Incremental JSON decoding on Jackson's non-blocking parser: bytes go in as they arrive, values come
 * out as soon as their last byte is in. The structural tokens around the values of interest are
 * walked by the subclass; each value of interest is copied token by token into a {@link TokenBuffer}
 * and bound when it is complete, so no raw bytes are kept beyond the buffer being fed.
 *
 * <p>Not thread-safe: feed it from one thread at a time (a Reactor operator's {@code onNext}).
 * A fed {@link ByteBuffer} is fully consumed before {@link #feed} returns, so its memory may be
 * released right after.
 */
abstract class JsonStreamDecoder {

    private final JsonParser parser;
    private final ByteBufferFeeder feeder;
    private final String source;

    private TokenBuffer capture;
    private int captureDepth;
    private int skipDepth;
    private boolean ended;

    JsonStreamDecoder(KubernetesJson json, String source) {
        this.parser = json.mapper().createNonBlockingByteBufferParser();
        this.feeder = (ByteBufferFeeder) parser.nonBlockingInputFeeder();
        this.source = source;
    }

    /** Feeds the next bytes and handles every token they complete. */
    final void feedBuffer(ByteBuffer bytes) {
        if (ended) {
            throw new IllegalStateException("input already ended");
        }
        feeder.feedInput(bytes);
        drain();
    }

    /** Marks the end of the input and checks that it ended between top-level values. */
    final void endInput() {
        if (ended) {
            return;
        }
        ended = true;
        feeder.endOfInput();
        drain();
        if (capture != null || skipDepth > 0 || !atValueBoundary()) {
            throw decodeError("input ended inside " + openStructure(), null, parser.currentLocation());
        }
    }

    private void drain() {
        try {
            JsonToken token;
            while ((token = parser.nextToken()) != null && token != JsonToken.NOT_AVAILABLE) {
                if (capture != null) {
                    capture.copyCurrentEvent(parser);
                    captureDepth += depthChange(token);
                    if (captureDepth == 0) {
                        TokenBuffer value = capture;
                        capture = null;
                        onCaptured(value);
                    }
                } else if (skipDepth > 0) {
                    skipDepth += depthChange(token);
                } else {
                    onToken(parser, token);
                }
            }
        } catch (StreamReadException e) {
            throw decodeError("malformed JSON: " + e.getOriginalMessage(), e, e.getLocation());
        }
    }

    /** Called for each token outside captured and skipped values. */
    abstract void onToken(JsonParser parser, JsonToken token);

    /** Called with each captured value once its last token is in. */
    abstract void onCaptured(TokenBuffer value);

    /** Whether the input may end here. */
    abstract boolean atValueBoundary();

    /** What is open when the input ends early, for the error message. */
    abstract String openStructure();

    /** Starts capturing the value whose first token is current; scalars are captured at once. */
    final void captureValue(JsonToken token) {
        TokenBuffer buffer = TokenBuffer.forBuffering(parser, parser.objectReadContext());
        buffer.copyCurrentEvent(parser);
        if (token.isStructStart()) {
            capture = buffer;
            captureDepth = 1;
        } else {
            onCaptured(buffer);
        }
    }

    /** Skips the value whose first token is current. */
    final void skipValue(JsonToken token) {
        if (token.isStructStart()) {
            skipDepth = 1;
        }
    }

    final <V> V bind(ObjectReader reader, TokenBuffer value, String what) {
        try (JsonParser p = value.asParser(parser.objectReadContext())) {
            return reader.readValue(p);
        } catch (JacksonException e) {
            throw decodeError("cannot decode " + what + ": " + e.getOriginalMessage(), e, parser.currentLocation());
        }
    }

    final DecodeException decodeError(String problem, Throwable cause) {
        return decodeError(problem, cause, parser.currentLocation());
    }

    private DecodeException decodeError(String problem, Throwable cause, TokenStreamLocation at) {
        StringBuilder b = new StringBuilder(source).append(": ").append(problem);
        if (at != null && at != TokenStreamLocation.NA) {
            b.append(" (at byte ").append(at.getByteOffset())
                    .append(", line ").append(at.getLineNr()).append(", column ").append(at.getColumnNr()).append(')');
        }
        return new DecodeException(b.toString(), cause);
    }

    private static int depthChange(JsonToken token) {
        return token.isStructStart() ? 1 : token.isStructEnd() ? -1 : 0;
    }
}
