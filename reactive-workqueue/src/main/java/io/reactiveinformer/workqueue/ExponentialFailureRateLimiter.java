package io.reactiveinformer.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** Per-item {@code base * 2^failures}, capped. */
final class ExponentialFailureRateLimiter<T> implements RateLimiter<T> {

    private final long baseNanos;
    private final long maxNanos;
    private final ConcurrentHashMap<T, Integer> failures = new ConcurrentHashMap<>();

    ExponentialFailureRateLimiter(Duration base, Duration max) {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(max, "max");
        if (base.isNegative() || max.isNegative()) {
            throw new IllegalArgumentException("delays must not be negative: base " + base + ", max " + max);
        }
        this.baseNanos = Nanos.of(base);
        this.maxNanos = Nanos.of(max);
    }

    @Override
    public Duration when(T item, long nowNanos) {
        int exponent = failures.merge(item, 1, Integer::sum) - 1;
        return Duration.ofNanos(Math.min(backoffNanos(exponent), maxNanos));
    }

    private long backoffNanos(int exponent) {
        if (baseNanos == 0) {
            return 0;
        }
        // the shift stays positive while it is shorter than the base's leading zeros
        if (exponent >= Long.numberOfLeadingZeros(baseNanos)) {
            return Long.MAX_VALUE;
        }
        return baseNanos << exponent;
    }

    @Override
    public void forget(T item) {
        // most items never failed: skip the write path of the map
        if (!failures.isEmpty()) {
            failures.remove(item);
        }
    }

    @Override
    public int numRequeues(T item) {
        return failures.getOrDefault(item, 0);
    }
}
