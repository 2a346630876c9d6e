package io.reactiveinformer.benchmarks.sidebyside;

import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The subscribe-storm measure (issue 30): what adding handlers to a running, synced informer costs the
 * caller and the handlers already there. One informer of pods with one fast handler (it only stamps each
 * notification, as in {@link IsolationRun}); the server paces {@code STORM_RATE} = 200 changes/s; after
 * {@code STORM_BASELINE_S} = 3 s of them (the baseline; its first second is discarded as warm-up) one
 * thread adds {@code STORM_JOINS} = 200 handlers, one after the other, each with the client's own call
 * for adding a handler to a running informer (this library: {@code notifications().subscribe}; fabric8
 * and the official client: {@code addEventHandler}; client-go: {@code AddEventHandler}).
 *
 * <p>Measured: how long each call blocked the caller ({@code storm_call_*}); how long from the call until
 * that handler had been called once per cached object, i.e. had the whole initial list
 * ({@code storm_initial_*}); how long until all of them had ({@code storm_all_initial_ms}); and the fast
 * handler's lag (server write to handler, as {@link IsolationRun} computes it) for changes written during
 * the baseline and from the first call until every joined handler had its initial list
 * ({@code storm_fast_*}, {@code storm_baseline_*}). The stream runs {@code STORM_SECONDS} = 30 s; the
 * measure waits for the fast handler to see its last change (at most {@code ISO_GRACE_S} more).
 *
 * <p>A contender creates the fast handler with {@link #fast()} before it starts the informer, then calls
 * {@link #run(Joiner)} once the fast handler has seen the listed objects.
 */
public final class StormRun {

    /** Adds handler {@code index} to the running informer; it passes each notification's resource version on. */
    @FunctionalInterface
    public interface Joiner {
        void join(int index, Consumer<String> handler) throws Exception;
    }

    private final double rate = Double.parseDouble(Harness.env("STORM_RATE", "200"));
    private final int seconds = Harness.envInt("STORM_SECONDS", 30);
    private final int baselineSeconds = Harness.envInt("STORM_BASELINE_S", 3);
    private final int joins = Harness.envInt("STORM_JOINS", 200);
    private final int graceSeconds = Harness.envInt("ISO_GRACE_S", 10);
    private final Harness.Target target;
    private final int events;
    private final long lastVersion;
    private final Stamps stamps;
    private volatile boolean measuring;

    public StormRun(Harness.Target target) throws IOException, InterruptedException {
        this.target = target;
        // a bookmark every 100 events: 100/99 events per change keep the changes at STORM_RATE
        events = (int) Math.ceil(rate * seconds * 100 / 99.0);
        int changes = target.notificationsIn(events);
        lastVersion = target.lastVersion(events);
        stamps = new Stamps(changes);
    }

    /** The fast handler's body: stamps each notification once the measure runs. Called by one thread at a time. */
    public Consumer<String> fast() {
        return resourceVersion -> {
            if (measuring) {
                stamps.stamp(resourceVersion);
            }
        };
    }

    /** Runs the measure on a synced informer whose fast handler has seen the listed objects. */
    public Map<String, Object> run(Joiner joiner) throws Exception {
        int objects = target.objects();
        measuring = true;
        long began = System.nanoTime();
        target.go(rate * 100 / 99.0, events);
        long baselineEnd = began + TimeUnit.SECONDS.toNanos(baselineSeconds);
        while (System.nanoTime() < baselineEnd) {
            LockSupport.parkNanos(baselineEnd - System.nanoTime());
        }

        long[] calls = new long[joins];
        AtomicLongArray initial = new AtomicLongArray(joins);
        CountDownLatch listed = new CountDownLatch(joins);
        long stormStart = Harness.epochMicros();
        long stormStartNanos = System.nanoTime();
        for (int i = 0; i < joins; i++) {
            int me = i;
            long[] count = new long[1];
            long callStart = System.nanoTime();
            joiner.join(i, resourceVersion -> {
                // one thread at a time per handler in every client
                if (++count[0] == objects) {
                    initial.set(me, System.nanoTime() - callStart);
                    listed.countDown();
                }
            });
            calls[i] = System.nanoTime() - callStart;
        }
        long callsNanos = System.nanoTime() - stormStartNanos;
        boolean allListed = listed.await(10, TimeUnit.MINUTES);
        long stormEnd = Harness.epochMicros();
        long allInitialNanos = System.nanoTime() - stormStartNanos;

        long deadline = Math.max(System.nanoTime(), began + TimeUnit.SECONDS.toNanos(seconds))
                + TimeUnit.SECONDS.toNanos(graceSeconds);
        while (System.nanoTime() < deadline && stamps.newest() < lastVersion) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        long end = Harness.epochMicros();
        measuring = false;
        long[][] seen = stamps.copy();
        long[] seenVersions = seen[0];
        long[] seenTimes = seen[1];
        IsolationRun.Writes writes = IsolationRun.Writes.parse(target.get("/writes?keys=1"));
        long[] baseline = writes.lags(seenVersions, seenTimes, writes.first() + Harness.LATENCY_DISCARD_MICROS,
                stormStart).sorted();
        IsolationRun.Lags storm = writes.lags(seenVersions, seenTimes, stormStart, Math.min(stormEnd, end));
        long[] stormLags = storm.sorted();
        long[] callSorted = calls.clone();
        Arrays.sort(callSorted);
        long[] initialSorted = new long[joins];
        for (int i = 0; i < joins; i++) {
            initialSorted[i] = initial.get(i);
        }
        Arrays.sort(initialSorted);

        Map<String, Object> m = new LinkedHashMap<>();
        m.put("storm_joins", joins);
        m.put("storm_rate", rate);
        m.put("storm_all_listed", allListed);
        m.put("storm_calls_ms", ms(callsNanos));
        m.put("storm_call_p50_ms", ms(Latencies.percentile(callSorted, 0.50)));
        m.put("storm_call_p99_ms", ms(Latencies.percentile(callSorted, 0.99)));
        m.put("storm_call_max_ms", ms(callSorted[joins - 1]));
        m.put("storm_initial_p50_ms", ms(Latencies.percentile(initialSorted, 0.50)));
        m.put("storm_initial_max_ms", ms(initialSorted[joins - 1]));
        m.put("storm_all_initial_ms", ms(allInitialNanos));
        m.put("storm_baseline_p50_ms", Latencies.percentile(baseline, 0.50) / 1e3);
        m.put("storm_baseline_p99_ms", Latencies.percentile(baseline, 0.99) / 1e3);
        m.put("storm_baseline_samples", baseline.length);
        m.put("storm_fast_p50_ms", Latencies.percentile(stormLags, 0.50) / 1e3);
        m.put("storm_fast_p99_ms", Latencies.percentile(stormLags, 0.99) / 1e3);
        m.put("storm_fast_max_ms", stormLags.length == 0 ? -1.0 : stormLags[stormLags.length - 1] / 1e3);
        m.put("storm_fast_samples", stormLags.length);
        m.put("storm_fast_unseen", storm.unseen());
        m.put("storm_measured_s", String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - began) / 1e9));
        return m;
    }

    private static String ms(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.2f", nanos / 1e6);
    }
}
