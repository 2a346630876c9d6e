package io.reactiveinformer.workqueue;

import java.time.Duration;
import java.util.Objects;

/** Caps another limiter's delay. */
final class MaxWaitRateLimiter<T> implements RateLimiter<T> {

    private final RateLimiter<T> delegate;
    private final Duration maxWait;

    MaxWaitRateLimiter(RateLimiter<T> delegate, Duration maxWait) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.maxWait = Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative: " + maxWait);
        }
    }

    @Override
    public Duration when(T item, long nowNanos) {
        Duration delay = delegate.when(item, nowNanos);
        return delay.compareTo(maxWait) > 0 ? maxWait : delay;
    }

    @Override
    public void forget(T item) {
        delegate.forget(item);
    }

    @Override
    public int numRequeues(T item) {
        return delegate.numRequeues(item);
    }
}
