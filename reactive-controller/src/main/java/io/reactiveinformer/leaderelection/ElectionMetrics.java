package io.reactiveinformer.leaderelection;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one election counts: Leases held now (0 or 1 for a leader election, shards for a {@link ShardElector})
 * and how often this replica acquired and lost one. Plain counters, so that an election runs without
 * Micrometer on the classpath; {@link MicrometerElectionMetrics} publishes them.
 */
final class ElectionMetrics {

    private final AtomicInteger held = new AtomicInteger();
    private final AtomicLong acquired = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();

    void acquired() {
        held.incrementAndGet();
        acquired.incrementAndGet();
    }

    void lost() {
        held.decrementAndGet();
        lost.incrementAndGet();
    }

    int held() {
        return held.get();
    }

    long acquisitions() {
        return acquired.get();
    }

    long losses() {
        return lost.get();
    }
}
