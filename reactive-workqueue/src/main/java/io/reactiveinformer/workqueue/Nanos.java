package io.reactiveinformer.workqueue;

import java.time.Duration;

/**
 * Nanosecond arithmetic that saturates instead of overflowing, so that a delay too long for a
 * {@code long} of nanoseconds (about 292 years) means "never" rather than wrapping around into the
 * past. Used by the delay timer for ready times and by the rate limiters for their delays.
 */
final class Nanos {

    private Nanos() {}

    /** {@code duration} in nanoseconds, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} when it does not fit. */
    static long of(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /** {@code a + b}, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} when it overflows. */
    static long add(long a, long b) {
        long sum = a + b;
        // overflow only when both operands have the same sign and the sum's sign differs
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return sum;
    }
}
