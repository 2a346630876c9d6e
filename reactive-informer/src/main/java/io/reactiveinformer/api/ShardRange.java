package io.reactiveinformer.api;

import java.math.BigInteger;

/**
 * A range {@code [start, end)} of the 64-bit FNV-1a hash space {@code [0, 2^64)} that a
 * {@link ShardSelector} selects (Kubernetes' {@code ShardedListAndWatch}, KEP-5866).
 *
 * <p>Bounds are unsigned: {@code 0x8000000000000000} is above {@code 0x7fffffffffffffff}. The end is
 * exclusive and may be {@code 0x10000000000000000} (2^64), so a range can reach the top of the space.
 * Bounds are rendered as the server requires them: {@code 0x} and 16 lowercase hex digits, or exactly
 * {@code 0x10000000000000000} for that one upper bound (the server rejects {@code '0x0'}).
 * Immutable; equal ranges are {@link #equals equal}.
 */
public final class ShardRange {

    /** 2^64: the exclusive end of the whole space, the only 17-digit bound the server accepts. */
    private static final String TOP = "0x10000000000000000";
    private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

    private final long start;
    /**
     * The end minus one: every range then fits in unsigned longs, 2^64 included, and {@code start <= last}
     * rules out empty ranges with one unsigned comparison.
     */
    private final long last;

    private ShardRange(long start, long last) {
        this.start = start;
        this.last = last;
    }

    /**
     * The range {@code [start, end)} in the server's syntax, e.g. {@code of("0x0000000000000000",
     * "0x8000000000000000")}.
     *
     * @throws IllegalArgumentException if a bound is not {@code 0x} and 16 lowercase hex digits (or, for
     *                                  {@code end}, {@code 0x10000000000000000}), or {@code start >= end}
     */
    public static ShardRange of(String start, String end) {
        long from = parse(start, "start");
        if (TOP.equals(end)) {
            return new ShardRange(from, -1L);
        }
        long to = parse(end, "end");
        if (Long.compareUnsigned(from, to) >= 0) {
            throw new IllegalArgumentException("shard range start " + start + " must be less than end " + end);
        }
        return new ShardRange(from, to - 1);
    }

    /**
     * Shard {@code index} of {@code count} equal shards of the whole space: {@code [index * 2^64 / count,
     * (index + 1) * 2^64 / count)}, rounded down, so the shards cover the space exactly, without overlap.
     *
     * @throws IllegalArgumentException unless {@code 0 <= index < count}
     */
    public static ShardRange split(int index, int count) {
        if (count < 1 || index < 0 || index >= count) {
            throw new IllegalArgumentException("shard " + index + " of " + count);
        }
        BigInteger from = TWO_TO_64.multiply(BigInteger.valueOf(index)).divide(BigInteger.valueOf(count));
        BigInteger to = TWO_TO_64.multiply(BigInteger.valueOf(index + 1L)).divide(BigInteger.valueOf(count));
        // longValue() keeps the low 64 bits: the unsigned value, and 2^64 - 1 becomes -1L.
        return new ShardRange(from.longValue(), to.subtract(BigInteger.ONE).longValue());
    }

    /** The shard of {@code count} equal shards ({@link #split}) whose range holds the unsigned 64-bit {@code hash}. */
    public static int indexOf(long hash, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("shard count must be positive: " + count);
        }
        // floor(hash * count / 2^64), unsigned; split's bounds are rounded down, so the hash may be the first
        // of the next shard
        long high = Math.multiplyHigh(hash, count) + (hash < 0 ? count : 0);
        int index = (int) high;
        return index + 1 < count && split(index + 1, count).contains(hash) ? index + 1 : index;
    }

    /** Whether {@code other} starts where this range ends. */
    boolean precedes(ShardRange other) {
        return last != -1L && last + 1 == other.start;
    }

    /** This range and the one it {@linkplain #precedes precedes}, as one. */
    ShardRange joinedWith(ShardRange other) {
        return new ShardRange(start, other.last);
    }

    /** Whether the unsigned 64-bit {@code hash} lies in {@code [start, end)}. */
    public boolean contains(long hash) {
        return Long.compareUnsigned(hash, start) >= 0 && Long.compareUnsigned(hash, last) <= 0;
    }

    /** The inclusive start as the server spells it, e.g. {@code 0x0000000000000000}. */
    public String start() {
        return hex(start);
    }

    /** The exclusive end as the server spells it, e.g. {@code 0x10000000000000000}. */
    public String end() {
        return last == -1L ? TOP : hex(last + 1);
    }

    private static long parse(String bound, String name) {
        if (bound == null || bound.length() != 18 || !bound.startsWith("0x")) {
            throw new IllegalArgumentException(name + " must be a 0x-prefixed 16-digit hex value, got " + bound);
        }
        for (int i = 2; i < bound.length(); i++) {
            char c = bound.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                throw new IllegalArgumentException(name + ": invalid hex character '" + c + "' in " + bound);
            }
        }
        return Long.parseUnsignedLong(bound.substring(2), 16);
    }

    /** {@code 0x} and 16 lowercase digits: Go's {@code %016x} after the prefix, so renderings compare as text. */
    static String hex(long value) {
        String digits = Long.toHexString(value);
        return "0x" + "0".repeat(16 - digits.length()) + digits;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShardRange other && other.start == start && other.last == last;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(start) * 31 + Long.hashCode(last);
    }

    /** {@code [start, end)}; {@link ShardSelector#toString()} gives the wire syntax. */
    @Override
    public String toString() {
        return "[" + start() + ", " + end() + ")";
    }
}
