package io.reactiveinformer.workqueue;

import java.time.Duration;
import java.util.List;

/**
 * Decides how long an item waits before it is retried ({@link WorkQueue#addRateLimited}).
 *
 * <p>Implementations are called concurrently from any thread and must be thread-safe and
 * non-blocking. They never read the wall clock: the queue passes the time of its
 * {@link reactor.core.scheduler.Scheduler} ({@code scheduler.now(NANOSECONDS)}), so virtual time
 * drives them in tests. Only differences between two {@code nowNanos} values are meaningful.
 *
 * @param <T> the item type (usually an object key such as {@code namespace/name})
 */
public interface RateLimiter<T> {

    /**
     * Records one more retry of {@code item} and returns how long it must wait.
     *
     * @param item the item to retry
     * @param nowNanos the queue scheduler's current time in nanoseconds
     * @return the delay, never negative
     */
    Duration when(T item, long nowNanos);

    /** Forgets the failure history of {@code item} (it succeeded, or it is gone). */
    void forget(T item);

    /** How many times {@code item} has been retried since it was last forgotten. */
    int numRequeues(T item);

    /**
     * client-go's default controller limiter: the larger of a per-item exponential backoff
     * (5 ms doubling up to 1000 s) and an overall token bucket (10 per second, burst 100).
     */
    static <T> RateLimiter<T> defaultControllerRateLimiter() {
        return maxOf(exponential(Duration.ofMillis(5), Duration.ofSeconds(1000)), tokenBucket(10, 100));
    }

    /**
     * Per-item exponential backoff: {@code base * 2^failures}, at most {@code max}. The n-th retry of
     * an item (counting from 0) waits {@code min(base * 2^n, max)}.
     */
    static <T> RateLimiter<T> exponential(Duration base, Duration max) {
        return new ExponentialFailureRateLimiter<>(base, max);
    }

    /**
     * One token bucket shared by all items: {@code burst} retries pass at once, then one every
     * {@code 1/qps} seconds. Keeps no per-item state: {@link #numRequeues} is always 0.
     *
     * @param qps tokens added per second, greater than 0
     * @param burst bucket size, at least 1
     */
    static <T> RateLimiter<T> tokenBucket(double qps, int burst) {
        return new TokenBucketRateLimiter<>(qps, burst);
    }

    /** The largest delay of several limiters; all of them record every retry. */
    @SafeVarargs
    static <T> RateLimiter<T> maxOf(RateLimiter<T>... limiters) {
        return new MaxOfRateLimiter<>(List.of(limiters));
    }

    /** {@code fast} for the first {@code maxFastAttempts} retries of an item, {@code slow} after. */
    static <T> RateLimiter<T> fastSlow(Duration fast, Duration slow, int maxFastAttempts) {
        return new FastSlowRateLimiter<>(fast, slow, maxFastAttempts);
    }

    /** {@code delegate}'s delay, but never more than {@code maxWait}. */
    static <T> RateLimiter<T> maxWait(RateLimiter<T> delegate, Duration maxWait) {
        return new MaxWaitRateLimiter<>(delegate, maxWait);
    }
}
