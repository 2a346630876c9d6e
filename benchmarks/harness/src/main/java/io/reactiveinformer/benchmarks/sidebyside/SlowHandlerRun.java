package io.reactiveinformer.benchmarks.sidebyside;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The slow-handler measure: once the contender's informer is synced and its one handler has seen the
 * listed objects quickly, the handler turns slow ({@link #slow()}: it then takes {@code SLOW_HANDLER_MS}
 * per notification), the server paces {@code SLOW_RATE} events/s for {@code SLOW_SECONDS}, and used
 * heap after full GC is read at the start, every {@code SLOW_SAMPLE_SECONDS} and at the end; the process's
 * CPU time over the stream is reported too (the phase runs beside the matrix, which it must barely touch). With
 * {@code SLOW_TOGETHER=J} the stream starts when J contenders (run side by side) are all ready.
 */
public final class SlowHandlerRun {

    public final long handlerMillis = Harness.envInt("SLOW_HANDLER_MS", 500);
    private final double rate = Double.parseDouble(Harness.env("SLOW_RATE", "200"));
    private final int seconds = Harness.envInt("SLOW_SECONDS", 300);
    private final int sampleSeconds = Harness.envInt("SLOW_SAMPLE_SECONDS", 30);
    private final int together = Harness.envInt("SLOW_TOGETHER", 1);
    private final AtomicLong handled = new AtomicLong();
    private volatile boolean slow;

    /** Whether the handler must now take {@link #handlerMillis} per notification. */
    public boolean slow() {
        return slow;
    }

    /** The handler finished one notification. */
    public void handled() {
        handled.incrementAndGet();
    }

    /** The blocking form of the slow handler's work, for clients that run handlers on threads of their own. */
    public void work() {
        if (slow) {
            try {
                Thread.sleep(handlerMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        handled();
    }

    /** Runs the measure on a synced informer whose handler has seen the listed objects; returns the measures. */
    public Map<String, Object> run(Harness.Target target) throws IOException, InterruptedException {
        long start = Harness.usedHeapAfterGc();
        long handledBefore = handled.get();
        slow = true;
        int written = target.go(rate, (int) Math.ceil(rate * seconds * 100 / 99.0), together);
        long began = System.nanoTime();
        double cpuAtStart = Harness.cpuSeconds();
        StringBuilder samples = new StringBuilder("0:").append(mb(start));
        long next = sampleSeconds;
        long end = start;
        while (true) {
            long at = Math.min(next, seconds);
            long wait = began + TimeUnit.SECONDS.toNanos(at) - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            end = Harness.usedHeapAfterGc();
            samples.append(',').append(at).append(':').append(mb(end));
            if (at >= seconds) {
                break;
            }
            next += sampleSeconds;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("slow_heap_start_mb", mb(start));
        m.put("slow_heap_end_mb", mb(end));
        m.put("slow_heap_growth_mb", mb(end - start));
        m.put("slow_seconds", seconds);
        m.put("slow_rate", rate);
        m.put("slow_handler_ms", handlerMillis);
        m.put("slow_notifications_sent", Math.min(written, Math.round(rate * seconds)));
        m.put("slow_handled", handled.get() - handledBefore);
        m.put("slow_heap_samples_mb", samples);
        // the phase runs beside the others: what it took from them
        m.put("slow_cpu_s", String.format(java.util.Locale.ROOT, "%.1f", Harness.cpuSeconds() - cpuAtStart));
        return m;
    }

    static String mb(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f", bytes / 1048576.0);
    }
}
