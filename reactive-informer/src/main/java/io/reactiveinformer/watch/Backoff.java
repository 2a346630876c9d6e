package io.reactiveinformer.watch;

import java.time.Duration;
import java.util.Objects;

/**
 * The exponential backoff a {@link Reflector} waits between failed attempts, with client-go's
 * semantics.
 *
 * <p>The n-th consecutive delay starts from a base {@code d = min(initial × factor^(n-1), cap)} and
 * adds jitter: the delay is uniform in {@code [d, d × (1 + jitter))}, so with the default jitter of
 * 1.0 it lies in {@code [d, 2d)}. The cap bounds the base, not the jittered delay: at the cap the
 * delays still spread over {@code [cap, 2 × cap)}, so clients that failed together do not retry in
 * lockstep. Once {@code resetAfter} has passed since the last retry started without another
 * failure, the next delay starts from {@code initial} again.
 *
 * @param initial    the first base delay; positive
 * @param factor     the growth of the base per consecutive failure; at least 1
 * @param jitter     the relative jitter; 0 for none
 * @param cap        the largest base delay; at least {@code initial}
 * @param resetAfter the healthy period after which the backoff starts again from {@code initial}; positive
 */
public record Backoff(Duration initial, double factor, double jitter, Duration cap, Duration resetAfter) {

    private static final Backoff DEFAULTS =
            new Backoff(Duration.ofMillis(800), 2.0, 1.0, Duration.ofSeconds(30), Duration.ofMinutes(2));

    public Backoff {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(cap, "cap");
        Objects.requireNonNull(resetAfter, "resetAfter");
        if (initial.isNegative() || initial.isZero()) {
            throw new IllegalArgumentException("initial must be positive: " + initial);
        }
        if (!(factor >= 1.0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("factor must be at least 1: " + factor);
        }
        if (!(jitter >= 0.0) || Double.isInfinite(jitter)) {
            throw new IllegalArgumentException("jitter must not be negative: " + jitter);
        }
        if (cap.compareTo(initial) < 0) {
            throw new IllegalArgumentException("cap " + cap + " is below initial " + initial);
        }
        if (resetAfter.isNegative() || resetAfter.isZero()) {
            throw new IllegalArgumentException("resetAfter must be positive: " + resetAfter);
        }
    }

    /** client-go's reflector backoff: 800 ms, ×2, jitter 1.0, cap 30 s, reset after 2 min. */
    public static Backoff defaults() {
        return DEFAULTS;
    }

    public Backoff withInitial(Duration initial) {
        return new Backoff(initial, factor, jitter, cap, resetAfter);
    }

    public Backoff withFactor(double factor) {
        return new Backoff(initial, factor, jitter, cap, resetAfter);
    }

    public Backoff withJitter(double jitter) {
        return new Backoff(initial, factor, jitter, cap, resetAfter);
    }

    public Backoff withCap(Duration cap) {
        return new Backoff(initial, factor, jitter, cap, resetAfter);
    }

    public Backoff withResetAfter(Duration resetAfter) {
        return new Backoff(initial, factor, jitter, cap, resetAfter);
    }
}
