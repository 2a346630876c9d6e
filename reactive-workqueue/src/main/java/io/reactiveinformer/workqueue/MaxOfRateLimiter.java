package io.reactiveinformer.workqueue;

import java.time.Duration;
import java.util.List;

/** The largest delay of several limiters. */
final class MaxOfRateLimiter<T> implements RateLimiter<T> {

    /** An array, not a list: {@link #forget} runs once per processed item and must not allocate an iterator. */
    private final RateLimiter<T>[] limiters;

    MaxOfRateLimiter(List<RateLimiter<T>> limiters) {
        if (limiters.isEmpty()) {
            throw new IllegalArgumentException("maxOf needs at least one limiter");
        }
        @SuppressWarnings("unchecked")
        RateLimiter<T>[] array = limiters.toArray(new RateLimiter[0]);
        this.limiters = array;
    }

    @Override
    public Duration when(T item, long nowNanos) {
        Duration max = Duration.ZERO;
        // every limiter records the retry, even when another one already gives a longer delay
        for (RateLimiter<T> limiter : limiters) {
            Duration delay = limiter.when(item, nowNanos);
            if (delay.compareTo(max) > 0) {
                max = delay;
            }
        }
        return max;
    }

    @Override
    public void forget(T item) {
        for (RateLimiter<T> limiter : limiters) {
            limiter.forget(item);
        }
    }

    @Override
    public int numRequeues(T item) {
        int max = 0;
        for (RateLimiter<T> limiter : limiters) {
            max = Math.max(max, limiter.numRequeues(item));
        }
        return max;
    }
}
