package io.reactiveinformer.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** A fixed short delay for the first attempts of an item, then a fixed long one. */
final class FastSlowRateLimiter<T> implements RateLimiter<T> {

    private final Duration fast;
    private final Duration slow;
    private final int maxFastAttempts;
    private final ConcurrentHashMap<T, Integer> attempts = new ConcurrentHashMap<>();

    FastSlowRateLimiter(Duration fast, Duration slow, int maxFastAttempts) {
        this.fast = Objects.requireNonNull(fast, "fast");
        this.slow = Objects.requireNonNull(slow, "slow");
        if (fast.isNegative() || slow.isNegative() || maxFastAttempts < 0) {
            throw new IllegalArgumentException(
                    "negative argument: fast " + fast + ", slow " + slow + ", maxFastAttempts " + maxFastAttempts);
        }
        this.maxFastAttempts = maxFastAttempts;
    }

    @Override
    public Duration when(T item, long nowNanos) {
        int attempt = attempts.merge(item, 1, Integer::sum);
        return attempt <= maxFastAttempts ? fast : slow;
    }

    @Override
    public void forget(T item) {
        attempts.remove(item);
    }

    @Override
    public int numRequeues(T item) {
        return attempts.getOrDefault(item, 0);
    }
}
