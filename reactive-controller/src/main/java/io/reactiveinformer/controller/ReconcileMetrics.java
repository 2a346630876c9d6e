package io.reactiveinformer.controller;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a controller counts beside its queue: reconciles that waited for the cache to see their request's
 * own writes (and whether it did within the bound) and reconciles cancelled by the reconcile timeout. Plain
 * counters, so that a controller runs without Micrometer on the classpath; {@link MicrometerReconcileMetrics}
 * publishes them.
 */
final class ReconcileMetrics {

    private final AtomicLong caughtUp = new AtomicLong();
    private final AtomicLong stale = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();

    void cacheCaughtUp() {
        caughtUp.incrementAndGet();
    }

    void cacheStale() {
        stale.incrementAndGet();
    }

    void timedOut() {
        timedOut.incrementAndGet();
    }

    long caughtUp() {
        return caughtUp.get();
    }

    long stale() {
        return stale.get();
    }

    long timeouts() {
        return timedOut.get();
    }
}
