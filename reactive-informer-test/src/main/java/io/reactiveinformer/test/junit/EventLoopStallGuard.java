package io.reactiveinformer.test.junit;

import io.netty.util.concurrent.EventExecutorGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test during which a Netty event loop was kept busy longer than a bound (100 ms unless configured):
 * the CPU-bound work on an event loop that BlockHound, which sees blocking calls only, cannot see.
 *
 * <p>A watchdog thread puts a no-op task on each event loop every 10 ms and measures how late it runs; a loop
 * running one long task (or one long read) runs it that much late. While it is late the loop thread's stack is
 * sampled; the failure names the thread, how late the probe ran, and the stacks. Watched: the loops of Reactor
 * Netty's global resources ({@code HttpResources}, which WebFlux's server and default clients run on) and any
 * group passed to {@link #watch}.
 *
 * <p>What it cannot tell apart: a probe also runs late behind many short tasks queued before it. Lateness that
 * the watchdog shares (the JVM stopped for a collection, a machine so loaded that the watchdog itself woke
 * late) is not reported, nor is a loop seen waiting in its selector in every sample. On a loaded machine raise
 * the bound rather than trust a tight one.
 *
 * <p>Configuration parameters (JUnit's, so also {@code junit-platform.properties} or system properties):
 * <ul>
 *   <li>{@value #BOUND}: the bound, a {@link Duration} ({@code PT0.25S}) or milliseconds ({@code 250}); 0 turns
 *       the guard off;</li>
 *   <li>{@value #REPORT_ONLY}: comma-separated {@code class.method} names (prefixes of them); a stall with one of
 *       these in a sampled stack is printed to standard error, not failed: for known stalls waiting for a fix.</li>
 * </ul>
 *
 * <p>A stall during which the loop was seen loading, linking or initializing classes is printed, not failed,
 * too: that is the JVM's warm-up (the first connection, the first request of a kind run cold code), once per
 * JVM.
 *
 * <p>Register it with {@code @ExtendWith}, or for a whole test suite through JUnit's extension auto-detection
 * ({@code junit.jupiter.extensions.autodetection.enabled=true} and a {@code
 * META-INF/services/org.junit.jupiter.api.extension.Extension} file naming it, in the suite's test resources).
 * Tests running in parallel share the loops: a stall then fails whichever test is checked first.
 */
public final class EventLoopStallGuard implements BeforeEachCallback, AfterEachCallback {

    /** The configuration parameter of the bound. */
    public static final String BOUND = "reactive-informer.event-loop-stall.bound";
    /** The configuration parameter of the stalls that are reported, not failed. */
    public static final String REPORT_ONLY = "reactive-informer.event-loop-stall.report-only";
    /** The bound unless configured. */
    public static final Duration DEFAULT_BOUND = Duration.ofMillis(100);

    /**
     * Frames of JVM warm-up: a loop seen loading, linking or initializing classes ({@code <clinit>}, matched
     * apart) runs code for the first time in this JVM (the first connection, the first request of a kind), a
     * cost once per JVM that no test can avoid.
     */
    static final List<String> WARM_UP = List.of("java.lang.ClassLoader.loadClass", "java.lang.ClassLoader.defineClass",
            "java.lang.invoke.MethodHandleNatives.link", "java.lang.invoke.InnerClassLambdaMetafactory");
    private static final String CLASS_INITIALIZER = "<clinit>";

    /** How long {@code afterEach} waits for a busy loop to run a task, to see its stall's end. */
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Watches the loops of {@code group} too, until it shuts down (Reactor Netty's global loops always are). */
    public static void watch(EventExecutorGroup group) {
        EventLoopWatchdog.get().watch(Objects.requireNonNull(group, "group"));
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        Duration bound = bound(context);
        if (bound.isZero()) {
            return;
        }
        EventLoopWatchdog watchdog = EventLoopWatchdog.get();
        watchdog.sampleAfter(bound.toNanos());
        watchdog.drain(DRAIN_NANOS);  // a stall before this test is not this test's
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Duration bound = bound(context);
        if (bound.isZero()) {
            return;
        }
        List<String> reportOnly = new ArrayList<>(WARM_UP);
        reportOnly.addAll(reportOnly(context));
        List<String> failures = new ArrayList<>();
        for (EventLoopWatchdog.Stall stall : EventLoopWatchdog.get().drain(DRAIN_NANOS)) {
            String allowed = matching(stall, reportOnly);
            String report = describe(stall, bound);
            if (allowed != null) {
                System.err.println("[event-loop stall, report-only: " + allowed + "] " + context.getDisplayName()
                        + ": " + report);
            } else {
                failures.add(report);
            }
        }
        if (!failures.isEmpty()) {
            throw new AssertionError("a Netty event loop was busy longer than " + bound.toMillis()
                    + " ms during this test (" + BOUND + "):\n" + String.join("\n", failures));
        }
    }

    private static String describe(EventLoopWatchdog.Stall stall, Duration bound) {
        StringBuilder b = new StringBuilder().append(stall.thread()).append(" ran a task ")
                .append(TimeUnit.NANOSECONDS.toMillis(stall.delayNanos())).append(" ms late");
        for (int i = 0; i < stall.samples().size(); i++) {
            StackTraceElement[] sample = stall.samples().get(i);
            b.append(i == 0 ? "; its stack once " + bound.toMillis() + " ms late:" : "\nand later:");
            Arrays.stream(sample).limit(40).forEach(frame -> b.append("\n\tat ").append(frame));
        }
        return b.toString();
    }

    /** The first report-only name (or class initializer) found in the stall's samples, else null. */
    private static String matching(EventLoopWatchdog.Stall stall, List<String> reportOnly) {
        for (StackTraceElement[] sample : stall.samples()) {
            for (StackTraceElement frame : sample) {
                if (frame.getMethodName().equals(CLASS_INITIALIZER)) {
                    return frame.getClassName() + "." + CLASS_INITIALIZER;
                }
                String name = frame.getClassName() + "." + frame.getMethodName();
                for (String allowed : reportOnly) {
                    if (name.startsWith(allowed)) {
                        return allowed;
                    }
                }
            }
        }
        return null;
    }

    private static Duration bound(ExtensionContext context) {
        return context.getConfigurationParameter(BOUND).map(String::trim).map(value -> value.startsWith("P")
                ? Duration.parse(value) : Duration.ofMillis(Long.parseLong(value))).orElse(DEFAULT_BOUND);
    }

    private static List<String> reportOnly(ExtensionContext context) {
        return context.getConfigurationParameter(REPORT_ONLY)
                .map(value -> Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList())
                .orElse(List.of());
    }
}
