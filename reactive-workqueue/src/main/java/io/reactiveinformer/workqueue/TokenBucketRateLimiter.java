package io.reactiveinformer.workqueue;

import java.time.Duration;

/**
 * One bucket for all items, in integer nanoseconds so delays are exact: the bucket holds
 * {@code tokens * nanosPerToken} and refills by the time that passed. A reservation always
 * succeeds and may drive the bucket negative; the deficit is the wait (golang.org/x/time/rate's
 * {@code Reserve}).
 */
final class TokenBucketRateLimiter<T> implements RateLimiter<T> {

    private final long nanosPerToken;
    private final long capacityNanos;
    /** Private, not this limiter's monitor: the limiter is handed to users. */
    private final Object lock = new Object();

    // guarded by lock
    private long contentNanos;
    private long lastNanos;
    private boolean started;

    TokenBucketRateLimiter(double qps, int burst) {
        if (!(qps > 0) || Double.isInfinite(qps)) {
            throw new IllegalArgumentException("qps must be positive and finite: " + qps);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be at least 1: " + burst);
        }
        this.nanosPerToken = Math.max(1, Math.round(1_000_000_000d / qps));
        this.capacityNanos = burst > Long.MAX_VALUE / nanosPerToken ? Long.MAX_VALUE : nanosPerToken * burst;
        this.contentNanos = capacityNanos;
    }

    @Override
    public Duration when(T item, long nowNanos) {
        synchronized (lock) {
            if (started) {
                long elapsed = Math.max(0, nowNanos - lastNanos);
                long refilled = contentNanos + elapsed;
                contentNanos = (refilled < contentNanos || refilled > capacityNanos) ? capacityNanos : refilled;
            }
            started = true;
            lastNanos = nowNanos;
            contentNanos -= nanosPerToken;
            return contentNanos >= 0 ? Duration.ZERO : Duration.ofNanos(-contentNanos);
        }
    }

    @Override
    public void forget(T item) {
        // shared bucket: there is no per-item history
    }

    @Override
    public int numRequeues(T item) {
        return 0;
    }
}
