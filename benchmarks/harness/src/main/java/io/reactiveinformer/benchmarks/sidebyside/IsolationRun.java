package io.reactiveinformer.benchmarks.sidebyside;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The isolation measure (issue 12): does a slow handler delay the fast handlers beside it? One informer
 * of pods with {@code ISO_FAST} = 8 fast handlers (they only stamp each notification), one handler that
 * spends {@code ISO_CPU_MS} = 10 ms of its thread's CPU time per notification (a busy loop, no blocking
 * call) and one that sleeps {@code ISO_SLEEP_MS} = 20 ms per notification (a blocking handler). Until
 * the listed objects have reached every handler all of them are fast; then the server paces
 * {@code ISO_RATE} = 500 changes/s for {@code ISO_SECONDS} and the slow ones turn slow.
 *
 * <p>The lag of a change, for one handler, is the time from the server's write of the change (the
 * {@link Latencies} clock: system clock, epoch µs) until the handler's first entry with that object at
 * that resource version or a later one: a client that merges pending changes of one object (this
 * library's default {@code BufferPolicy.COALESCE}) delivers the older change inside the newer one. The
 * measure ends once every fast handler has seen the stream's last change, or {@code ISO_GRACE_S} after
 * the stream's end; a change a handler had not seen by then counts with the time until the end (a lower
 * bound) and is reported as unseen. Changes written in the stream's first second are not counted
 * (warm-up, as in the latency measure), nor those the server had not written by the end (a client that
 * reads too slowly holds the server's writes back; they are reported as unwritten). Once the measure ends the slow handlers return at once, so that
 * a client with a backlog shuts down quickly.
 *
 * <p>A contender registers {@link #handlers()} handlers: fast ones are {@code 0..FAST-1},
 * {@link #cpuIndex()} and {@link #sleepIndex()} the slow ones; each calls {@link Handler#handle(String)}
 * with the notified object's resource version. A {@link Handler} is called by one thread at a time.
 */
public final class IsolationRun {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final double rate = Double.parseDouble(Harness.env("ISO_RATE", "500"));
    private final int seconds = Harness.envInt("ISO_SECONDS", 20);
    private final int graceSeconds = Harness.envInt("ISO_GRACE_S", 10);
    private final long cpuNanos = TimeUnit.MILLISECONDS.toNanos(Harness.envInt("ISO_CPU_MS", 10));
    private final long sleepMillis = Harness.envInt("ISO_SLEEP_MS", 20);
    private final Harness.Target target;
    /** Events of the stream (bookmarks included): {@code ISO_RATE} changes/s for {@code ISO_SECONDS}. */
    private final int events;
    private final long lastVersion;
    private final Handler[] handlers;
    private volatile boolean measuring;

    public IsolationRun(Harness.Target target) throws IOException, InterruptedException {
        this.target = target;
        // a bookmark every 100 events: 100/99 events per change keep the changes at ISO_RATE
        events = (int) Math.ceil(rate * seconds * 100 / 99.0);
        int changes = target.notificationsIn(events);
        lastVersion = target.lastVersion(events);
        int fast = Harness.envInt("ISO_FAST", 8);
        handlers = new Handler[fast + 2];
        for (int i = 0; i < fast; i++) {
            handlers[i] = new Handler(changes, () -> { });
        }
        handlers[fast] = new Handler(changes, this::burnCpu);
        handlers[fast + 1] = new Handler(changes, this::sleep);
    }

    /** Every handler a contender registers, in the order of {@link #handler(int)}. */
    public int handlers() {
        return handlers.length;
    }

    public int cpuIndex() {
        return handlers.length - 2;
    }

    public int sleepIndex() {
        return handlers.length - 1;
    }

    public Handler handler(int index) {
        return handlers[index];
    }

    /** The CPU-bound handler's work: {@code ISO_CPU_MS} of this thread's CPU time (not wall time). */
    private void burnCpu() {
        long end = THREADS.getCurrentThreadCpuTime() + cpuNanos;
        while (THREADS.getCurrentThreadCpuTime() < end) {
            Thread.onSpinWait();
        }
    }

    /** The blocking handler's work. */
    private void sleep() {
        try {
            Thread.sleep(sleepMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One handler's receive stamps and its work. */
    public final class Handler {

        private final Stamps stamps;
        private final Runnable work;
        private long handled;

        private Handler(int capacity, Runnable work) {
            stamps = new Stamps(capacity);
            this.work = work;
        }

        /**
         * The handler's body for a notification of the object at {@code resourceVersion}: before the
         * stream it returns at once; during it, it stamps the notification and does its work.
         */
        public void handle(String resourceVersion) {
            if (!measuring) {
                return;
            }
            stamps.stamp(resourceVersion);
            work.run();
            synchronized (this) {
                handled++;
            }
        }

        synchronized long[][] snapshot() {
            long[][] stamped = stamps.copy();
            return new long[][] {stamped[0], stamped[1], {handled}};
        }
    }

    /** Runs the measure on a synced informer whose handlers have all seen the listed objects. */
    public Map<String, Object> run() throws IOException, InterruptedException {
        measuring = true;
        long began = System.nanoTime();
        target.go(rate * 100 / 99.0, events);
        long deadline = began + TimeUnit.SECONDS.toNanos(seconds + graceSeconds);
        while (System.nanoTime() < deadline && !fastHandlersSaw(lastVersion)) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        long end = Harness.epochMicros();
        double measured = (System.nanoTime() - began) / 1e9;
        measuring = false;
        long[][][] seen = new long[handlers.length][][];
        for (int i = 0; i < handlers.length; i++) {
            seen[i] = handlers[i].snapshot();
        }
        Writes writes = Writes.parse(target.get("/writes?keys=1"));
        long from = writes.first() + Harness.LATENCY_DISCARD_MICROS;
        List<Lags> fastLags = new ArrayList<>();
        for (int i = 0; i < cpuIndex(); i++) {
            fastLags.add(writes.lags(seen[i][0], seen[i][1], from, end));
        }
        long[] fast = fastLags.stream().flatMapToLong(l -> Arrays.stream(l.micros())).sorted().toArray();
        Lags cpu = writes.lags(seen[cpuIndex()][0], seen[cpuIndex()][1], from, end);
        Lags sleep = writes.lags(seen[sleepIndex()][0], seen[sleepIndex()][1], from, end);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("iso_rate", rate);
        m.put("iso_seconds", seconds);
        m.put("iso_cpu_ms", TimeUnit.NANOSECONDS.toMillis(cpuNanos));
        m.put("iso_sleep_ms", sleepMillis);
        m.put("iso_fast_handlers", cpuIndex());
        m.put("iso_changes", writes.size());
        m.put("iso_unwritten", writes.writtenAfter(end));
        m.put("iso_fast_p50_ms", Latencies.percentile(fast, 0.50) / 1e3);
        m.put("iso_fast_p99_ms", Latencies.percentile(fast, 0.99) / 1e3);
        m.put("iso_fast_max_ms", fast.length == 0 ? -1.0 : fast[fast.length - 1] / 1e3);
        m.put("iso_fast_samples", fast.length);
        m.put("iso_fast_unseen", fastLags.stream().mapToInt(Lags::unseen).sum());
        m.put("iso_cpu_p50_ms", Latencies.percentile(cpu.sorted(), 0.50) / 1e3);
        m.put("iso_cpu_handled", seen[cpuIndex()][2][0]);
        m.put("iso_cpu_unseen", cpu.unseen());
        m.put("iso_sleep_p50_ms", Latencies.percentile(sleep.sorted(), 0.50) / 1e3);
        m.put("iso_sleep_handled", seen[sleepIndex()][2][0]);
        m.put("iso_sleep_unseen", sleep.unseen());
        m.put("iso_measured_s", String.format(java.util.Locale.ROOT, "%.1f", measured));
        return m;
    }

    private boolean fastHandlersSaw(long version) {
        for (int i = 0; i < cpuIndex(); i++) {
            if (handlers[i].stamps.newest() < version) {
                return false;
            }
        }
        return true;
    }

    /** One handler's lag of each counted change (µs, in write order) and how many of them it had not seen. */
    record Lags(long[] micros, int unseen) {

        long[] sorted() {
            long[] sorted = micros.clone();
            Arrays.sort(sorted);
            return sorted;
        }
    }

    /**
     * The replay server's record of the stream ({@code /writes?keys=1}: resource version, write time,
     * object key), in write order, and the lag computation over it. {@link StormRun} uses it too.
     */
    static final class Writes {

        private final long[] versions;
        private final long[] times;
        private final String[] keys;
        private final Map<Long, String> keyOf = new HashMap<>();

        private Writes(List<String> lines) {
            versions = new long[lines.size()];
            times = new long[lines.size()];
            keys = new String[lines.size()];
            for (int i = 0; i < lines.size(); i++) {
                String[] f = lines.get(i).split(" ");
                versions[i] = Long.parseLong(f[0]);
                times[i] = Long.parseLong(f[1]);
                keys[i] = f[2];
                keyOf.put(versions[i], keys[i]);
            }
        }

        static Writes parse(String text) {
            List<String> lines = new ArrayList<>();
            for (String line : text.split("\n")) {
                if (!line.isBlank()) {
                    lines.add(line);
                }
            }
            return new Writes(lines);
        }

        int size() {
            return versions.length;
        }

        long first() {
            return times.length == 0 ? 0 : times[0];
        }

        int writtenAfter(long end) {
            return (int) Arrays.stream(times).filter(at -> at > end).count();
        }

        /**
         * The lag of every change written from {@code from} to {@code end} as one handler saw it (its receive
         * stamps in arrival order): until its first entry with that object at that version or later;
         * {@code end} minus the write for a change it had not seen (counted as unseen).
         */
        Lags lags(long[] seenVersions, long[] seenTimes, long from, long end) {
            Map<String, List<Integer>> byKey = new HashMap<>();
            for (int i = 0; i < seenVersions.length; i++) {
                String key = keyOf.get(seenVersions[i]);
                if (key != null) {
                    byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(i);
                }
            }
            Map<String, int[]> next = new HashMap<>();
            long[] lags = new long[versions.length];
            int kept = 0;
            int unseen = 0;
            for (int w = 0; w < versions.length; w++) {
                List<Integer> arrivals = byKey.getOrDefault(keys[w], List.of());
                int[] at = next.computeIfAbsent(keys[w], k -> new int[1]);
                while (at[0] < arrivals.size() && seenVersions[arrivals.get(at[0])] < versions[w]) {
                    at[0]++;
                }
                if (times[w] < from || times[w] > end) {
                    continue;
                }
                if (at[0] < arrivals.size()) {
                    lags[kept++] = seenTimes[arrivals.get(at[0])] - times[w];
                } else {
                    lags[kept++] = end - times[w];
                    unseen++;
                }
            }
            return new Lags(Arrays.copyOf(lags, kept), unseen);
        }
    }
}
