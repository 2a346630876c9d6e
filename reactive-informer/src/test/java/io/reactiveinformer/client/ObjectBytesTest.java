package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ObjectBytesTest {

    /**
     * Brackets, quotes and backslashes inside strings, at every offset within the eight-byte words the scan
     * reads; buffers from a byte to a few kilobytes, so that the collector's own copy steps (a kilobyte) also
     * split objects and buffers anywhere, and hand back what they copied past an object's end.
     */
    private static final String ALPHABET = "ab{}[]\\\"\\\\:,x";

    @Test
    void anObjectEndsAtItsClosingBraceHoweverItsBytesAreSplitAndWhateverTheBufferKind() {
        Random random = new Random(18);
        for (int round = 0; round < 300; round++) {
            byte[] object = randomObject(random).getBytes(StandardCharsets.UTF_8);
            byte[] stream = concat(object, " {\"next\":1}".getBytes(StandardCharsets.UTF_8));
            int chunk = random.nextBoolean() ? 1 + random.nextInt(24) : 1 + random.nextInt(3000);
            boolean direct = random.nextBoolean();
            ByteOrder order = random.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;

            ObjectBytes bytes = new ObjectBytes();
            bytes.start(0);
            int consumed = 1;
            boolean complete = false;
            while (!complete) {
                assertThat(consumed).as("round %d: the object ended unseen", round).isLessThan(stream.length);
                int n = Math.min(chunk, stream.length - consumed);
                ByteBuffer buffer = (direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n)).order(order);
                buffer.put(stream, consumed, n).flip();
                complete = bytes.scan(buffer);
                consumed += buffer.position();
            }

            assertThat(consumed).as("round %d, chunks of %d: where the object ends", round, chunk).isEqualTo(object.length);
            assertThat(new String(bytes.take(), StandardCharsets.UTF_8)).isEqualTo(new String(object, StandardCharsets.UTF_8));
        }
    }

    /** {"k0":"…","k1":{…},"k2":[…]} with escapes, nesting and long strings. */
    private static String randomObject(Random random) {
        StringBuilder json = new StringBuilder("{");
        int fields = 1 + random.nextInt(5);
        for (int f = 0; f < fields; f++) {
            json.append(f == 0 ? "" : ",").append('"').append("k").append(f).append("\":");
            switch (random.nextInt(3)) {
                case 0 -> json.append(randomString(random));
                case 1 -> json.append(randomDepth(random) ? randomObject(random) : "{}");
                default -> json.append('[').append(randomString(random)).append(",1,").append(randomString(random)).append(']');
            }
        }
        return json.append('}').toString();
    }

    private static boolean randomDepth(Random random) {
        return random.nextInt(3) == 0;
    }

    private static String randomString(Random random) {
        StringBuilder s = new StringBuilder("\"");
        int length = random.nextInt(8) == 0 ? random.nextInt(1500) : random.nextInt(40);
        for (int i = 0; i < length; i++) {
            char c = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
            s.append(c == '"' || c == '\\' ? "\\" + c : String.valueOf(c));
        }
        return s.append('"').toString();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
