package io.reactiveinformer.benchmarks.sidebyside;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Receive times of one handler, matched afterwards with the replay server's write times by resource
 * version. The handler calls {@link #record(String)} from its delivery thread with the notified
 * object's resource version; both sides read the system clock in epoch microseconds, so the
 * difference is the latency from the server's write to the handler, on one machine.
 *
 * <p>Not thread-safe: one handler records; {@link #summary} is read after the handler is done (the
 * {@link Counters} latch orders the two).
 */
public final class Latencies {

    private final String[] versions;
    private final long[] times;
    private int size;

    public Latencies(int capacity) {
        versions = new String[capacity];
        times = new long[capacity];
    }

    public void record(String resourceVersion) {
        if (size < times.length) {
            times[size] = Harness.epochMicros();
            versions[size++] = resourceVersion;
        }
    }

    /**
     * p50, p99, p99.9 and max in microseconds over the notifications written after the stream's first
     * {@code discardMicros} (the warm-up of the paced stream), and how many were matched.
     */
    public Map<String, Object> summary(Harness.Target target, long discardMicros) throws IOException, InterruptedException {
        Map<String, Long> written = new HashMap<>();
        long first = Long.MAX_VALUE;
        for (String line : target.get("/writes").split("\n")) {
            int space = line.indexOf(' ');
            if (space > 0) {
                long at = Long.parseLong(line.substring(space + 1));
                written.put(line.substring(0, space), at);
                first = Math.min(first, at);
            }
        }
        long[] latencies = new long[size];
        int kept = 0;
        int unmatched = 0;
        for (int i = 0; i < size; i++) {
            Long at = written.get(versions[i]);
            if (at == null) {
                unmatched++;
            } else if (at >= first + discardMicros) {
                latencies[kept++] = times[i] - at;
            }
        }
        long from = first + discardMicros;
        long counted = written.values().stream().filter(at -> at >= from).count();
        latencies = Arrays.copyOf(latencies, kept);
        Arrays.sort(latencies);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lat_p50_ms", percentile(latencies, 0.50) / 1e3);
        m.put("lat_p99_ms", percentile(latencies, 0.99) / 1e3);
        m.put("lat_p999_ms", percentile(latencies, 0.999) / 1e3);
        m.put("lat_max_ms", kept == 0 ? -1.0 : latencies[kept - 1] / 1e3);
        m.put("lat_samples", kept);
        m.put("lat_unmatched", unmatched);
        // changes the handler never saw on their own (a client that merges a key's pending changes)
        m.put("lat_merged", counted - kept);
        return m;
    }

    /** Nearest-rank percentile in microseconds; -1 ms without samples. */
    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return -1000;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
    }
}
