package io.reactiveinformer.test.junit;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import reactor.netty.http.HttpResources;
import reactor.netty.resources.LoopResources;

/**
 * One daemon thread per JVM that puts a no-op probe on each watched Netty event loop every {@link #PERIOD_NANOS}
 * and measures how long it waited to run: a loop that ran one task (or one read's handlers) for a while runs
 * the probe that much late. When a probe is {@code sampleAfterNanos} late, the loop thread's stack is sampled,
 * and again while it stays late, so a report shows what the loop was doing. A late probe is reported only if a
 * sample shows the loop running code (not waiting in its selector): one that ran late by less than the period
 * past the bound may go unsampled, and so may the first task of a loop whose thread is not known yet.
 *
 * <p>A probe also waits when the loop is not at fault: many short tasks queued before it, the loop thread
 * descheduled by a loaded machine, the whole JVM stopped for a garbage collection. The last two stop or slow
 * the watchdog too: a probe during whose wait the watchdog itself woke up more than {@code sampleAfterNanos}
 * late is not reported when the loop thread's CPU time cannot be read. Where it can (HotSpot on Linux), that
 * is the measure instead: a probe is reported only if the loop thread itself used at least
 * {@code sampleAfterNanos} of CPU while it waited. A loop that was runnable but not given a core (beside
 * {@code stress-ng}, say) or stopped at a safepoint ran no code that long, whatever the wall clock says, and a
 * loop that did is reported even if the watchdog was held up meanwhile.
 */
final class EventLoopWatchdog {

    static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** A probe that ran {@code delayNanos} late on {@code thread}, with the stacks sampled meanwhile. */
    record Stall(String thread, long delayNanos, long endedAtNanos, List<StackTraceElement[]> samples) {
    }

    private static final EventLoopWatchdog INSTANCE = new EventLoopWatchdog();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Set<EventExecutorGroup> groups = new CopyOnWriteArraySet<>();
    private final Map<EventExecutor, Probe> probes = new ConcurrentHashMap<>();
    private final List<Stall> stalls = new ArrayList<>();  // guarded by itself
    private volatile long sampleAfterNanos = TimeUnit.MILLISECONDS.toNanos(100);
    private volatile Thread thread;
    /** When the watchdog last woke up more than {@link #sampleAfterNanos} late (the JVM or the machine stalled). */
    private volatile long lastLateWakeUp = Long.MIN_VALUE;

    private EventLoopWatchdog() {
    }

    /** The watchdog, started. */
    static EventLoopWatchdog get() {
        INSTANCE.start();
        return INSTANCE;
    }

    void watch(EventExecutorGroup group) {
        groups.add(group);
        for (EventExecutor loop : group) {
            Probe probe = probes.computeIfAbsent(loop, Probe::new);
            try {
                loop.execute(() -> probe.loopThread = Thread.currentThread());  // known before the loop's first stall
            } catch (RejectedExecutionException shutDown) {
                // nothing to watch
            }
        }
    }

    void sampleAfter(long nanos) {
        sampleAfterNanos = nanos;
    }

    /** Forgets the stalls recorded so far. */
    void clear() {
        synchronized (stalls) {
            stalls.clear();
        }
    }

    /**
     * Waits (up to {@code timeoutNanos}) until every watched loop has run a task submitted now, so that a stall
     * that began before this call has been recorded; then returns and forgets the stalls recorded so far.
     */
    List<Stall> drain(long timeoutNanos) {
        List<CompletableFuture<Void>> ran = new ArrayList<>();
        for (EventExecutor loop : loops()) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Probe probe = probes.computeIfAbsent(loop, Probe::new);
            try {
                loop.execute(() -> {
                    probe.loopThread = Thread.currentThread();  // known before the loop's first stall
                    done.complete(null);
                });
                ran.add(done);
            } catch (RejectedExecutionException shutDown) {
                // a loop shutting down runs no more tasks, long or short
            }
        }
        try {
            CompletableFuture.allOf(ran.toArray(CompletableFuture[]::new)).get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException stillBusy) {
            // reported below through the probes that are still late
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException cannotHappen) {
            throw new IllegalStateException(cannotHappen);
        }
        long now = System.nanoTime();
        List<Stall> out;
        synchronized (stalls) {
            out = new ArrayList<>(stalls);
            stalls.clear();
        }
        for (Probe probe : probes.values()) {
            Stall ongoing = probe.ongoing(now);
            if (ongoing != null) {
                out.add(ongoing);
            }
        }
        return out;
    }

    private synchronized void start() {
        if (thread != null) {
            return;
        }
        thread = new Thread(this::run, "event-loop-stall-watchdog");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        long last = System.nanoTime();
        while (true) {
            LockSupport.parkNanos(PERIOD_NANOS);
            long now = System.nanoTime();
            if (now - last - PERIOD_NANOS > sampleAfterNanos) {
                lastLateWakeUp = now;
            }
            last = now;
            tick(now);
        }
    }

    private void tick(long now) {
        List<EventExecutor> loops = loops();
        probes.keySet().removeIf(loop -> !loops.contains(loop));
        for (EventExecutor loop : loops) {
            probes.computeIfAbsent(loop, Probe::new).tick(now);
        }
    }

    /** The loops of Reactor Netty's global resources (which WebFlux and default clients run on) and the watched. */
    private List<EventExecutor> loops() {
        List<EventExecutor> loops = new ArrayList<>();
        add(loops, HttpResources.get().onServer(LoopResources.DEFAULT_NATIVE));
        for (EventExecutorGroup group : groups) {
            if (group.isShuttingDown()) {
                groups.remove(group);
            } else {
                add(loops, group);
            }
        }
        return loops;
    }

    private static void add(List<EventExecutor> loops, EventExecutorGroup group) {
        for (EventExecutor loop : group) {
            if (!loop.isShuttingDown() && !loops.contains(loop)) {
                loops.add(loop);
            }
        }
    }

    private void record(Stall stall) {
        synchronized (stalls) {
            stalls.add(stall);
        }
    }

    /** The outstanding probe of one loop. */
    private final class Probe implements Runnable {

        private final EventExecutor loop;
        private volatile Thread loopThread;
        // guarded by this
        private long submittedAt;  // 0: none outstanding
        private long cpuAtSubmit = -1;  // the loop thread's CPU time then; -1: unknown
        private final List<StackTraceElement[]> samples = new ArrayList<>();

        Probe(EventExecutor loop) {
            this.loop = loop;
        }

        synchronized void tick(long now) {
            if (loopThread == null) {
                // before its first probe runs: a loop first seen already busy (its first task, in a cold
                // JVM, the very stall to catch) would otherwise be neither sampled nor timed
                loopThread = threadOf(loop);
            }
            if (submittedAt == 0) {
                submittedAt = now;
                cpuAtSubmit = cpuTime(loopThread);
                try {
                    loop.execute(this);
                } catch (RejectedExecutionException shutDown) {
                    submittedAt = 0;
                }
                return;
            }
            if (cpuAtSubmit < 0) {
                // the loop's thread was not known when the probe went out (a loop's first task starts its
                // thread): its CPU time counted from now undercounts, never overcounts, what it ran meanwhile.
                // Without it the wall clock would judge, and a loaded machine (the watchdog woken late) would
                // excuse the stall
                cpuAtSubmit = cpuTime(loopThread);
            }
            if (now - submittedAt > sampleAfterNanos && loopThread != null && samples.size() < 2) {
                samples.add(loopThread.getStackTrace());
            } else if (now - submittedAt > sampleAfterNanos && loopThread != null) {
                samples.set(1, loopThread.getStackTrace());  // keep the first and the latest
            }
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            loopThread = Thread.currentThread();
            Stall stall;
            synchronized (this) {
                stall = stall(now);
                submittedAt = 0;
                samples.clear();
            }
            if (stall != null) {
                record(stall);
            }
        }

        /** The stall the outstanding probe shows by now, if it is one. */
        synchronized Stall ongoing(long now) {
            return submittedAt == 0 ? null : stall(now);
        }

        // guarded by this
        private Stall stall(long now) {
            long delay = now - submittedAt;
            if (delay <= sampleAfterNanos || !sawBusy(samples)) {
                return null;  // not late, or not seen running
            }
            long cpu = cpuTime(loopThread);
            boolean cpuKnown = cpuAtSubmit >= 0 && cpu >= 0;
            if (cpuKnown ? cpu - cpuAtSubmit < sampleAfterNanos : lastLateWakeUp >= submittedAt) {
                // the loop ran less than the bound (it waited for a core, or the JVM was stopped), or, without
                // CPU times, the watchdog was late too (a collection, a loaded machine)
                return null;
            }
            return new Stall(loopThread.getName(), delay, now, List.copyOf(samples));
        }
    }

    /** The thread running {@code loop}, or null while it has none. */
    private static Thread threadOf(EventExecutor loop) {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int count = root.enumerate(threads, true);
        for (int i = 0; i < count; i++) {
            if (loop.inEventLoop(threads[i])) {
                return threads[i];
            }
        }
        return null;
    }

    /** {@code thread}'s CPU time in nanoseconds; -1 when unknown (no thread yet, or not measurable here). */
    private static long cpuTime(Thread thread) {
        if (thread == null || !THREADS.isThreadCpuTimeSupported()) {
            return -1;
        }
        return THREADS.getThreadCpuTime(thread.getId());
    }

    /**
     * Whether a sample shows the loop thread running code, not waiting for I/O in its selector nor running the
     * probe. There are none
     * when the probe ran before the next sample, or when the thread was not known yet (the loop was starting).
     */
    private static boolean sawBusy(List<StackTraceElement[]> samples) {
        for (StackTraceElement[] sample : samples) {
            if (sample.length > 0 && !waiting(sample[0]) && !probing(sample)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the sample caught the probe itself running: the stall had ended, what it was is not seen. */
    private static boolean probing(StackTraceElement[] sample) {
        for (StackTraceElement frame : sample) {
            if (frame.getClassName().equals(Probe.class.getName())) {
                return true;
            }
        }
        return false;
    }

    private static boolean waiting(StackTraceElement top) {
        String type = top.getClassName();
        String method = top.getMethodName().toLowerCase(java.util.Locale.ROOT);
        return top.isNativeMethod() && (type.startsWith("sun.nio.ch.") || type.startsWith("io.netty.channel."))
                && (method.contains("wait") || method.contains("poll") || method.contains("select")
                || method.contains("kevent") || method.contains("enter"));
    }
}
