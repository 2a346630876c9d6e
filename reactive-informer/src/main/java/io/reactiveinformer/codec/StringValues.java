package io.reactiveinformer.codec;

import java.nio.charset.StandardCharsets;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.jdk.StringDeserializer;

/**
 * One {@code String} instance for each short string value seen again, so a cache of thousands of
 * objects keeps {@code "IfNotPresent"}, {@code "True"}, a namespace or an image name once rather than
 * once per object. Jackson already does this for property names, not for values.
 *
 * <p>One table per mapper ({@link KubernetesJson#mapperBuilder()} makes a new one), so two clients
 * with their own mappers do not evict each other's values. A direct-mapped table of {@value #SLOTS}
 * slots shared by every thread decoding with that mapper: a value replaces
 * whatever its slot held, so the table needs no lock, never grows, and keeps the values that keep
 * coming. Racy reads and writes are safe because a {@code String} is immutable and safely published
 * through its final fields; a torn slot (hash of one string, reference to another) fails the
 * {@code equals} check and only costs a duplicate, as does a lost write. Strings longer than
 * {@value #MAX_LENGTH} chars (uids, hashes, tokens, long annotations) are rarely repeated and not looked up.
 */
final class StringValues {

    static final int SLOTS = 8192;
    static final int MAX_LENGTH = 64;

    private final String[] table = new String[SLOTS];
    /** Each slot's hash, checked first so a miss does not touch the held string's memory. */
    private final int[] hashes = new int[SLOTS];

    /**
     * The parser's current string value, or an equal instance seen before. Looked up in the parser's
     * own character buffer, so a value seen before costs no {@code String} (nor its bytes) at all.
     */
    String canonical(JsonParser p) {
        int length = p.getStringLength();
        if (length > MAX_LENGTH) {
            return p.getString();
        }
        char[] chars = p.getStringCharacters();
        int offset = p.getStringOffset();
        int end = offset + length;
        // String.hashCode's function, so the slot of a value does not depend on how it arrived
        int h = 0;
        for (int i = offset; i < end; i++) {
            h = 31 * h + chars[i];
        }
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        if (hashes[slot] == h) {
            String known = table[slot];
            if (known != null && sameChars(known, chars, offset, length)) {
                return known;
            }
        }
        String value = new String(chars, offset, length);
        table[slot] = value;
        hashes[slot] = h;
        return value;
    }

    /**
     * The string of the {@code length} UTF-8 bytes at {@code offset}, or an equal instance seen before: what
     * the protobuf decoders read strings with. An ASCII value seen before costs no {@code String}; one with
     * other characters is decoded first, then looked up.
     */
    String canonical(byte[] utf8, int offset, int length) {
        if (length > MAX_LENGTH) {
            return new String(utf8, offset, length, StandardCharsets.UTF_8);
        }
        int end = offset + length;
        // String.hashCode's function, as above: for ASCII a byte is the char
        int h = 0;
        for (int i = offset; i < end; i++) {
            byte b = utf8[i];
            if (b < 0) {
                return canonical(new String(utf8, offset, length, StandardCharsets.UTF_8));
            }
            h = 31 * h + b;
        }
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        if (hashes[slot] == h) {
            String known = table[slot];
            if (known != null && sameAscii(known, utf8, offset, length)) {
                return known;
            }
        }
        String value = new String(utf8, offset, length, StandardCharsets.ISO_8859_1);
        table[slot] = value;
        hashes[slot] = h;
        return value;
    }

    private String canonical(String value) {
        int h = value.hashCode();
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        String known = table[slot];
        if (hashes[slot] == h && value.equals(known)) {
            return known;
        }
        table[slot] = value;
        hashes[slot] = h;
        return value;
    }

    private static boolean sameAscii(String known, byte[] bytes, int offset, int length) {
        if (known.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (known.charAt(i) != bytes[offset + i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameChars(String known, char[] chars, int offset, int length) {
        if (known.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (known.charAt(i) != chars[offset + i]) {
                return false;
            }
        }
        return true;
    }

    /** Jackson's own {@code String} handling, with string tokens made {@linkplain #canonical canonical}. */
    static final class Deserializer extends StringDeserializer {

        private static final long serialVersionUID = 1L;

        private final transient StringValues values;

        Deserializer(StringValues values) {
            this.values = values;
        }

        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                return values.canonical(p);
            }
            return super.deserialize(p, ctxt);
        }
    }
}
