package io.reactiveinformer.client;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Collects one JSON object's bytes across buffers split anywhere, from its opening brace to the
 * matching closing one, following only strings, escapes and brackets: a few instructions per byte,
 * where Jackson's non-blocking parser spends most of a stream's CPU. What is inside is checked when
 * the bytes are bound, on Jackson's blocking path.
 *
 * <p>Not thread-safe. The buffer grows to the largest object seen, and is dropped after one over a
 * megabyte so that a single huge object does not pin its memory for the rest of the stream.
 */
final class ObjectBytes {

    private static final int INITIAL = 8192;

    private byte[] buffer = new byte[INITIAL];
    private int length;
    private int depth;
    private boolean inString;
    private boolean escaped;
    private long offset;

    /** Starts an object whose opening brace, at {@code offset} of the stream, was just read. */
    void start(long offset) {
        this.offset = offset;
        buffer[0] = '{';
        length = 1;
        depth = 1;
        inString = false;
        escaped = false;
    }

    /** Whether an object is started and not yet complete. */
    boolean open() {
        return depth > 0;
    }

    /** Where the current (or last) object began in the stream. */
    long offset() {
        return offset;
    }

    /**
     * Consumes {@code bytes} up to the object's closing brace, or all of them.
     *
     * @return whether the object is complete; {@link #take()} then returns it
     */
    boolean scan(ByteBuffer bytes) {
        int start = bytes.position();
        int limit = bytes.limit();
        int i = start;
        boolean complete = false;
        while (i < limit) {
            byte b = bytes.get(i++);
            if (inString) {
                if (escaped) {
                    escaped = false;
                } else if (b == '\\') {
                    escaped = true;
                } else if (b == '"') {
                    inString = false;
                }
            } else if (b == '"') {
                inString = true;
            } else if (b == '{' || b == '[') {
                depth++;
            } else if ((b == '}' || b == ']') && --depth == 0) {
                complete = true;
                break;
            }
        }
        int n = i - start;
        if (length + n > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(length + n, buffer.length * 2));
        }
        bytes.get(buffer, length, n);
        length += n;
        return complete;
    }

    /** The complete object's bytes, in an array of their own. */
    byte[] take() {
        byte[] object = Arrays.copyOf(buffer, length);
        length = 0;
        if (buffer.length > 1 << 20) {
            buffer = new byte[INITIAL];
        }
        return object;
    }
}
