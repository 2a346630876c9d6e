package io.reactiveinformer.benchmarks.sidebyside;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What this process spent between {@link #start()} and {@link #per}: CPU time and bytes allocated on the
 * heap, each divided by the units of work done in between (watch events, listed objects). The one measure of
 * both for every JVM contender; the Go contender's is {@code processCost} in {@code client-go/main.go}.
 *
 * <p>CPU is the process's user and system time, every thread (GC and JIT compiler threads included), from
 * {@code com.sun.management.OperatingSystemMXBean.getProcessCpuTime()}: on Linux counted in clock ticks
 * (10 ms), so a window should be long against that. Allocation is the sum over the live threads of
 * {@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes}, read at both ends; JDK 17 keeps no
 * process total (JDK 21 adds {@code getTotalThreadAllocatedBytes}), so what a thread allocated within the
 * window is lost if it has ended by its end. {@link #per} reports how many threads ended within the window, so
 * a reading that misses some shows it.
 *
 * <p>Threading: {@link #start()} and {@link #per} read the whole process from the calling thread; an
 * instance is used by one thread.
 */
public final class ProcessCost {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final long cpuNanos;
    private final Map<Long, Long> allocatedByThread;
    private final long threadsStarted;

    private ProcessCost(long cpuNanos, Map<Long, Long> allocatedByThread, long threadsStarted) {
        this.cpuNanos = cpuNanos;
        this.allocatedByThread = allocatedByThread;
        this.threadsStarted = threadsStarted;
    }

    /** Reads the process's CPU time and every live thread's allocated bytes now. */
    public static ProcessCost start() {
        // the count before the ids (and after them in per): a thread started in between counts as ended, never
        // the other way round, so threads_ended is an upper bound
        long started = THREADS.getTotalStartedThreadCount();
        long[] ids = THREADS.getAllThreadIds();
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        Map<Long, Long> allocated = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                allocated.put(ids[i], bytes[i]);
            }
        }
        return new ProcessCost(cpuNanos(), allocated, started);
    }

    /** CPU time (user and system, all threads) this process has used so far, in nanoseconds. */
    public static long cpuNanos() {
        return OS.getProcessCpuTime();
    }

    /**
     * What the process spent since {@link #start()} per {@code unit}: {@code <window>_cpu_us_per_<unit>} (µs of
     * CPU), {@code <window>_alloc_bytes_per_<unit>} and {@code <window>_threads_ended} (threads whose allocation
     * in the window is missing from the bytes: alive at the start and gone now, or started since and gone).
     */
    public Map<String, Object> per(String window, String unit, long units) {
        long cpu = cpuNanos() - cpuNanos;
        long[] ids = THREADS.getAllThreadIds();
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        long startedSince = THREADS.getTotalStartedThreadCount() - threadsStarted;
        long allocated = 0;
        int stillAlive = 0;
        int newAlive = 0;
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] < 0) {
                continue;
            }
            Long before = allocatedByThread.get(ids[i]);
            if (before != null) {
                stillAlive++;
                allocated += bytes[i] - before;
            } else {
                newAlive++;
                allocated += bytes[i];
            }
        }
        long ended = (allocatedByThread.size() - stillAlive) + (startedSince - newAlive);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(window + "_cpu_us_per_" + unit, Math.round(cpu / 1e3 / units * 10) / 10.0);
        m.put(window + "_alloc_bytes_per_" + unit, allocated / units);
        m.put(window + "_threads_ended", ended);
        return m;
    }
}
