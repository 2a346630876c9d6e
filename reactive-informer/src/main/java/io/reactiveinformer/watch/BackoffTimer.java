package io.reactiveinformer.watch;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import reactor.core.scheduler.Scheduler;

/**
 * The mutable state of one {@link Backoff}: the current base delay and when the last retry started.
 * Not thread-safe; a reflector run calls it from one signal at a time.
 */
final class BackoffTimer {

    private final Backoff backoff;
    private final Scheduler clock;
    private final DoubleSupplier random;

    private long baseNanos;
    private long lastRetryStartNanos;
    private boolean used;

    BackoffTimer(Backoff backoff, Scheduler clock, DoubleSupplier random) {
        this.backoff = backoff;
        this.clock = clock;
        this.random = random;
        this.baseNanos = backoff.initial().toNanos();
    }

    /** The delay before the next attempt; advances the base for the one after. */
    Duration next() {
        long now = clock.now(TimeUnit.NANOSECONDS);
        if (used && now - lastRetryStartNanos >= backoff.resetAfter().toNanos()) {
            baseNanos = backoff.initial().toNanos();
        }
        long delay = baseNanos + (long) (baseNanos * backoff.jitter() * unit(random.getAsDouble()));
        long cap = backoff.cap().toNanos();
        double grown = baseNanos * backoff.factor();
        baseNanos = grown >= cap ? cap : (long) grown;
        lastRetryStartNanos = now + delay;
        used = true;
        return Duration.ofNanos(delay);
    }

    /**
     * A delay for a retry that no failure of the server calls for, such as a relist the server asked for: the
     * initial delay, jittered, whatever earlier failures made of the base. Leaves the base as it was.
     */
    Duration initial() {
        long initial = backoff.initial().toNanos();
        return Duration.ofNanos(initial + (long) (initial * backoff.jitter() * unit(random.getAsDouble())));
    }

    /** A random source outside [0, 1) would break the jitter bounds; clamp it rather than trust it. */
    static double unit(double r) {
        if (!(r > 0.0)) {
            return 0.0;
        }
        return Math.min(r, Math.nextDown(1.0));
    }
}
