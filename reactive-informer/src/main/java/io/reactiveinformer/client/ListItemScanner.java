package io.reactiveinformer.client;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Finds where each element of a LIST response's {@code "items"} array begins and ends, in byte chunks
 * split anywhere, without parsing them ({@link ObjectBytes} collects each one). Each
 * complete element is handed out as its own bytes, to be bound on Jackson's blocking path (on any
 * thread, several at once); everything else (the list's {@code kind}, {@code metadata}, the empty
 * {@code "items":[]}) is kept as the <em>envelope</em>, a few hundred bytes that the caller parses
 * at the end, which is also where malformed JSON outside the items is found.
 *
 * <p>The scanner checks the array's own structure (elements are objects separated by single commas),
 * and that brackets balance; an element's inside is checked when it is bound.
 *
 * <p>Not thread-safe: feed it from one thread at a time. A fed buffer is consumed before
 * {@link #feed} returns. Memory: the element in progress, plus what the caller keeps.
 */
final class ListItemScanner {

    /** One element's bytes, and where it began in the response (for error messages). */
    record RawItem(byte[] bytes, long offset) {
    }

    private enum Mode { ENVELOPE, ITEMS_KEY_SEEN, ITEMS_START, ITEMS_NEXT, ITEMS_ELEMENT, IN_ITEM }

    private static final byte[] ITEMS_KEY = "\"items\"".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final String source;

    private byte[] envelope = new byte[512];
    private int envelopeLength;
    private final ObjectBytes item = new ObjectBytes();

    private Mode mode = Mode.ENVELOPE;
    private long offset;
    private int depth;
    private boolean inString;
    private boolean escaped;
    /** Where the envelope's last string at depth 1 began (a candidate key), or -1. */
    private int keyStart = -1;
    private boolean itemsKey;
    private boolean itemsSeen;

    ListItemScanner(String source) {
        this.source = source;
    }

    /** Scans {@code bytes}; returns the elements they completed, in order (often none, or several). */
    List<RawItem> feed(ByteBuffer bytes) {
        List<RawItem> done = List.of();
        while (bytes.hasRemaining()) {
            if (mode == Mode.IN_ITEM) {
                RawItem completed = scanItem(bytes);
                if (completed != null) {
                    if (done.isEmpty()) {
                        done = new ArrayList<>(4);
                    }
                    done.add(completed);
                }
            } else {
                structural(bytes.get());
                offset++;
            }
        }
        return done;
    }

    /**
     * Ends the input and returns the envelope, the response without its elements.
     *
     * @throws io.reactiveinformer.api.DecodeException if the input ended inside an element or with brackets open
     */
    byte[] end(int itemsSeenSoFar) {
        if (mode == Mode.IN_ITEM || mode == Mode.ITEMS_NEXT || mode == Mode.ITEMS_ELEMENT || mode == Mode.ITEMS_START) {
            throw error("input ended inside item " + itemsSeenSoFar + " of the list");
        }
        if (depth != 0 || inString) {
            throw error("input ended inside the list object");
        }
        return Arrays.copyOf(envelope, envelopeLength);
    }

    /** Copies an element's bytes up to its closing brace or the end of the buffer. */
    private RawItem scanItem(ByteBuffer bytes) {
        int before = bytes.position();
        boolean complete = item.scan(bytes);
        offset += bytes.position() - before;
        if (!complete) {
            return null;
        }
        mode = Mode.ITEMS_NEXT;
        return new RawItem(item.take(), item.offset());
    }

    private void structural(byte b) {
        switch (mode) {
            case ITEMS_START, ITEMS_NEXT, ITEMS_ELEMENT -> inItems(b);
            default -> inEnvelope(b);
        }
    }

    private void inItems(byte b) {
        if (whitespace(b)) {
            return;
        }
        if (b == '{' && mode != Mode.ITEMS_NEXT) {
            mode = Mode.IN_ITEM;
            item.start(offset);
        } else if (b == ',' && mode == Mode.ITEMS_NEXT) {
            mode = Mode.ITEMS_ELEMENT;
        } else if (b == ']' && mode != Mode.ITEMS_ELEMENT) {
            mode = Mode.ENVELOPE;
            depth--;
            append(b);
        } else {
            throw error(mode == Mode.ITEMS_NEXT ? "expected ',' or ']' after an item of \"items\", found " + describe(b)
                    : "expected an object in \"items\", found " + describe(b));
        }
    }

    private void inEnvelope(byte b) {
        append(b);
        if (inString) {
            if (escaped) {
                escaped = false;
            } else if (b == '\\') {
                escaped = true;
            } else if (b == '"') {
                inString = false;
                itemsKey = keyStart >= 0 && !itemsSeen && depth == 1
                        && Arrays.equals(envelope, keyStart, envelopeLength, ITEMS_KEY, 0, ITEMS_KEY.length);
            }
            return;
        }
        if (whitespace(b)) {
            return;
        }
        if (mode == Mode.ITEMS_KEY_SEEN) {
            if (b == '[') {
                mode = Mode.ITEMS_START;
                itemsSeen = true;
                depth++;
                return;
            }
            mode = Mode.ENVELOPE; // "items" that is not an array: the envelope's parse reports or ignores it
        }
        boolean wasKey = itemsKey;
        itemsKey = false;
        switch (b) {
            case '"' -> {
                inString = true;
                keyStart = envelopeLength - 1;
            }
            case ':' -> {
                if (wasKey) {
                    mode = Mode.ITEMS_KEY_SEEN;
                }
            }
            case '{', '[' -> depth++;
            case '}', ']' -> {
                if (--depth < 0) {
                    throw error("unbalanced " + describe(b));
                }
            }
            default -> {
                // scalars and commas of the envelope: its parse checks them
            }
        }
    }

    private void append(byte b) {
        if (envelopeLength == envelope.length) {
            envelope = Arrays.copyOf(envelope, envelope.length * 2);
        }
        envelope[envelopeLength++] = b;
    }

    private static boolean whitespace(byte b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }

    private static String describe(byte b) {
        return b >= 0x20 && b < 0x7f ? "'" + (char) b + "'" : String.format("byte 0x%02x", b & 0xff);
    }

    private io.reactiveinformer.api.DecodeException error(String problem) {
        return new io.reactiveinformer.api.DecodeException(source + ": malformed JSON: " + problem + " (at byte " + offset + ")",
                null);
    }
}
