package io.reactiveinformer.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final long QUOTES = ONES * '"';
    private static final long BACKSLASHES = ONES * '\\';
    /** Bytes copied from the caller's buffer per scan step: a bound on what is copied past an object's end. */
    private static final int STEP = 1024;
    /** Little-endian, so the lowest set bit of a match mask is the first byte in the array. */
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

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
     * <p>The bytes are copied into this collector's array a step at a time and scanned there: plain array
     * reads are the cheapest HotSpot has, where a {@code ByteBuffer}'s (a direct one above all, as the
     * network hands over) check bounds and scope on every access. The bytes copied past the closing brace
     * (less than a step) are handed back by moving the buffer's position.
     *
     * @return whether the object is complete; {@link #read} or {@link #take()} then returns it
     */
    boolean scan(ByteBuffer bytes) {
        while (bytes.hasRemaining()) {
            int n = Math.min(bytes.remaining(), STEP);
            if (length + n > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(length + n, buffer.length * 2));
            }
            int from = length;
            bytes.get(buffer, from, n);
            int end = scan(from, from + n);
            if (end >= 0) {
                bytes.position(bytes.position() - (from + n - end));
                length = end;
                return true;
            }
            length = from + n;
        }
        return false;
    }

    /** Scans {@code buffer[from, limit)}: the index after the object's closing brace, or -1 if it goes on. */
    private int scan(int from, int limit) {
        byte[] b = buffer;
        int i = from;
        int d = depth;
        boolean str = inString;
        boolean esc = escaped;
        int end = -1;
        scan:
        while (i < limit) {
            if (str) {
                if (esc) {
                    esc = false;
                    i++;
                    continue;
                }
                // most of an object's bytes are inside strings, where only a quote or a backslash matters
                while ((i = nextQuoteOrBackslash(b, i, limit)) < limit) {
                    if (b[i++] == '"') {
                        str = false;
                        continue scan;
                    }
                    if (i < limit) {
                        i++;
                    } else {
                        esc = true;
                    }
                }
                break;
            }
            byte c = b[i++];
            if (c == '"') {
                str = true;
            } else if (c == '{' || c == '[') {
                d++;
            } else if ((c == '}' || c == ']') && --d == 0) {
                end = i;
                break;
            }
        }
        depth = d;
        inString = str;
        escaped = esc;
        return end;
    }

    /**
     * The index of the first {@code "} or {@code \\} in {@code b[from, limit)}, or {@code limit}: eight bytes
     * at a time, each word tested for either byte with the "has a zero byte" bit trick on the word XOR the
     * byte repeated (exact for the lowest match, which is the one taken: the trick's false positives sit
     * only above a true match).
     */
    private static int nextQuoteOrBackslash(byte[] b, int from, int limit) {
        int i = from;
        while (limit - i >= Long.BYTES) {
            long word = (long) WORDS.get(b, i);
            long quotes = word ^ QUOTES;
            long backslashes = word ^ BACKSLASHES;
            long found = ((quotes - ONES) & ~quotes | (backslashes - ONES) & ~backslashes) & HIGH_BITS;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
            i += Long.BYTES;
        }
        while (i < limit && b[i] != '"' && b[i] != '\\') {
            i++;
        }
        return i;
    }

    /** Reads a complete object's bytes where they lie. */
    @FunctionalInterface
    interface InPlace<R> {

        /** {@code bytes[0, length)} is the object; the array is the collector's and is reused after this returns. */
        R read(byte[] bytes, int length);
    }

    /**
     * Hands the complete object's bytes, in place, to {@code reader}, then forgets them: for a caller that
     * binds at once on this thread and needs no copy of its own (a watch event; a LIST item, bound on another
     * thread, takes a copy with {@link #take()}).
     */
    <R> R read(InPlace<R> reader) {
        try {
            return reader.read(buffer, length);
        } finally {
            forget();
        }
    }

    /** The complete object's bytes, in an array of their own. */
    byte[] take() {
        byte[] object = Arrays.copyOf(buffer, length);
        forget();
        return object;
    }

    private void forget() {
        length = 0;
        if (buffer.length > 1 << 20) {
            buffer = new byte[INITIAL];
        }
    }
}
