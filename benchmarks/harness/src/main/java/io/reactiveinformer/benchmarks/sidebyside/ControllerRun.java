package io.reactiveinformer.benchmarks.sidebyside;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The controller side-by-side (issue 32): one contender process running one controller over the ConfigMaps of
 * a namespace, whose reconcile reads the object from the cache and, when its annotation {@value #ANNOTATION}
 * differs from its {@code data.v}, merge-patches the annotation. The contender supplies the controller
 * ({@link Contender}); this class holds what both contenders share: the settings, the counting done at
 * every reconcile, and the measure of each mode ({@code CTRL_MODE}):
 * <ul>
 *   <li>{@code throughput}: the {@code data.v} of {@code CTRL_WRITES} objects (all {@code CTRL_N} unless
 *       set) was set to {@code CTRL_TARGET} before the process started; the controller starts and writes
 *       them. Reports writes per
 *       second from the first reconcile's start to the last write's end, and the retained heap per cached
 *       object (used heap after GC once converged, minus the same before the controller was created).</li>
 *   <li>{@code latency}: once the initial pass over the converged objects is done it prints {@code READY};
 *       a churner then changes objects at a fixed rate, stamping {@code data.ts} (epoch µs) just before
 *       each write. Reports p50/p99/max of the time from that stamp to the start of the reconcile that
 *       sees the change, over {@code CTRL_LAT_COUNT} changes.</li>
 *   <li>{@code failover}: leader-elected (Lease {@code CTRL_LEASE}, identity {@code CTRL_IDENTITY}); prints
 *       {@code STARTED} once started and {@code FIRST_RECONCILE <epoch ms>} at its first reconcile, then
 *       runs until killed. The driver kills the leader and times the standby's first reconcile.</li>
 * </ul>
 *
 * <p>Threading: {@link #reconciling} and {@link #wrote} are called from any number of reconcile threads at
 * once; every counter is atomic.
 */
public final class ControllerRun {

    public static final String ANNOTATION = "bench/observed";

    /** A contender's controller. */
    public interface Contender {
        /**
         * Creates the client and starts the controller with {@link #workers()} concurrent reconciles (and leader
         * election when {@link #lease()} is set), calling {@link #reconciling} and {@link #wrote} as it works.
         *
         * @return what stops it
         */
        AutoCloseable start(ControllerRun run) throws Exception;
    }

    private final String mode = Harness.env("CTRL_MODE", "throughput");
    private final String namespace = Harness.env("CTRL_NS", "bench-ctrl");
    private final int objects = Harness.envInt("CTRL_N", 10_000);
    private final int workers = Harness.envInt("CTRL_WORKERS", 1);
    private final String target = Harness.env("CTRL_TARGET", "");
    private final int targetCount = Harness.envInt("CTRL_WRITES", objects);
    private final int latencyCount = Harness.envInt("CTRL_LAT_COUNT", 0);
    private final Duration deadline = Duration.ofSeconds(Harness.envInt("CTRL_DEADLINE_S", 600));

    private final AtomicLong reconciles = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong firstReconcileNanos = new AtomicLong();
    private final AtomicLong lastWriteNanos = new AtomicLong();
    private final AtomicBoolean first = new AtomicBoolean();
    private final CountDownLatch converged = new CountDownLatch(1);
    private final AtomicInteger targetWrites = new AtomicInteger();
    private final CountDownLatch initialPass = new CountDownLatch(1);
    private final Set<String> sampled = ConcurrentHashMap.newKeySet();
    private final long[] latencies;
    private final AtomicInteger samples = new AtomicInteger();
    private final CountDownLatch sampledAll;

    private ControllerRun() {
        latencies = new long[latencyCount];
        sampledAll = new CountDownLatch(latencyCount);
    }

    public String namespace() {
        return namespace;
    }

    public int workers() {
        return workers;
    }

    /** The Lease to campaign for, or {@code null}: no leader election. */
    public String lease() {
        return mode.equals("failover") ? Harness.env("CTRL_LEASE", "bench-ctrl") : null;
    }

    public String identity() {
        return Harness.env("CTRL_IDENTITY", "replica-" + ProcessHandle.current().pid());
    }

    /** The same three for both contenders (client-go's names). */
    public Duration leaseDuration() {
        return Duration.ofMillis(Harness.envInt("CTRL_LEASE_DURATION_MS", 10_000));
    }

    public Duration renewDeadline() {
        return Duration.ofMillis(Harness.envInt("CTRL_RENEW_DEADLINE_MS", 8_000));
    }

    public Duration retryPeriod() {
        return Duration.ofMillis(Harness.envInt("CTRL_RETRY_PERIOD_MS", 2_000));
    }

    /** The JSON merge patch that records {@code v} as observed. */
    public static String patch(String v) {
        return "{\"metadata\":{\"annotations\":{\"" + ANNOTATION + "\":\"" + v + "\"}}}";
    }

    /**
     * Called first in every reconcile with what the cache holds.
     *
     * @return whether the object must be written ({@code observed} differs from {@code v})
     */
    public boolean reconciling(String v, String stampMicros, String observed) {
        long now = System.nanoTime();
        if (first.compareAndSet(false, true)) {
            firstReconcileNanos.set(now);
            System.out.println("FIRST_RECONCILE " + System.currentTimeMillis());
            System.out.flush();
        }
        if (reconciles.incrementAndGet() == objects) {
            initialPass.countDown();
        }
        boolean stale = v != null && !v.equals(observed);
        if (stale && stampMicros != null && latencyCount > 0 && sampled.add(v)) {
            int i = samples.getAndIncrement();
            if (i < latencyCount) {
                latencies[i] = Harness.epochMicros() - Long.parseLong(stampMicros);
                sampledAll.countDown();
            }
        }
        return stale;
    }

    /** Called once the write of {@code v} succeeded. */
    public void wrote(String v) {
        writes.incrementAndGet();
        if (v.equals(target) && targetWrites.incrementAndGet() == targetCount) {
            lastWriteNanos.set(System.nanoTime());
            converged.countDown();
        }
    }

    /** Runs {@code contender} in the mode {@code CTRL_MODE} and prints its {@code RESULT} line. */
    public static void main(String name, Contender contender) throws Exception {
        ControllerRun run = new ControllerRun();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("contender", name);
        m.put("mode", run.mode);
        m.put("n", run.objects);
        m.put("workers", run.workers);
        if (run.mode.equals("throughput")) {
            m.put("target_count", run.targetCount);
        }
        switch (run.mode) {
            case "throughput" -> run.throughput(contender, m);
            case "latency" -> run.latency(contender, m);
            case "failover" -> run.failover(contender);
            default -> throw new IllegalArgumentException("CTRL_MODE " + run.mode);
        }
        StringBuilder text = new StringBuilder("RESULT");
        m.forEach((k, v) -> text.append(' ').append(k).append('=').append(v));
        System.out.println(text);
        System.out.flush();
        // some clients keep non-daemon threads after close
        System.exit(0);
    }

    private void throughput(Contender contender, Map<String, Object> m) throws Exception {
        long before = Harness.settledHeapAfterGc();
        try (AutoCloseable controller = contender.start(this)) {
            if (!converged.await(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                m.put("timeout_s", deadline.toSeconds());
                m.put("target_writes", targetWrites.get());
                return;
            }
            double seconds = (lastWriteNanos.get() - firstReconcileNanos.get()) / 1e9;
            m.put("seconds", String.format("%.2f", seconds));
            m.put("writes", writes.get());
            m.put("reconciles", reconciles.get());
            m.put("writes_per_s", String.format("%.1f", targetCount / seconds));
            long after = Harness.settledHeapAfterGc();
            m.put("heap_per_object_b", (after - before) / objects);
        }
    }

    private void latency(Contender contender, Map<String, Object> m) throws Exception {
        try (AutoCloseable controller = contender.start(this)) {
            if (!initialPass.await(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                m.put("timeout_s", deadline.toSeconds());
                return;
            }
            System.out.println("READY");
            System.out.flush();
            boolean all = sampledAll.await(deadline.toMillis(), TimeUnit.MILLISECONDS);
            int kept = Math.min(samples.get(), latencyCount);
            long[] sorted = Arrays.copyOf(latencies, kept);
            Arrays.sort(sorted);
            m.put("lat_samples", kept);
            m.put("lat_complete", all);
            m.put("lat_p50_ms", Latencies.percentile(sorted, 0.50) / 1e3);
            m.put("lat_p99_ms", Latencies.percentile(sorted, 0.99) / 1e3);
            m.put("lat_max_ms", kept == 0 ? -1.0 : sorted[kept - 1] / 1e3);
        }
    }

    private void failover(Contender contender) throws Exception {
        contender.start(this);
        System.out.println("STARTED " + System.currentTimeMillis());
        System.out.flush();
        // the driver ends this process (kill -9 for the leader)
        new CountDownLatch(1).await();
    }
}
