package io.reactiveinformer.benchmarks.sidebyside;

import java.util.Arrays;

/**
 * One handler's receive stamps: the resource version of each notification and when it arrived (the
 * {@link Latencies} clock, epoch µs), in arrival order, up to a capacity; and the newest version seen.
 * {@link IsolationRun} and {@link StormRun} compute lags from them.
 */
final class Stamps {

    private final long[] versions;
    private final long[] times;
    private int size;
    private volatile long newest;

    Stamps(int capacity) {
        versions = new long[capacity];
        times = new long[capacity];
    }

    /** Stamps a notification of the object at {@code resourceVersion}, now. */
    void stamp(String resourceVersion) {
        long at = Harness.epochMicros();
        long version = Long.parseLong(resourceVersion);
        synchronized (this) {
            if (size < times.length) {
                versions[size] = version;
                times[size++] = at;
            }
        }
        newest = Math.max(newest, version);
    }

    long newest() {
        return newest;
    }

    /** The versions and the times stamped so far, read together: {@code {versions, times}}. */
    synchronized long[][] copy() {
        return new long[][] {Arrays.copyOf(versions, size), Arrays.copyOf(times, size)};
    }
}
