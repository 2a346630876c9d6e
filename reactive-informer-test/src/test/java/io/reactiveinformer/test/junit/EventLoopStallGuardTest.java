package io.reactiveinformer.test.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;
import reactor.netty.http.HttpResources;
import reactor.netty.resources.LoopResources;

/**
 * The guard runs test classes of its own (nested here, so that the build does not run them by themselves):
 * one whose test makes a Reactor Netty event loop spin for a second must fail, naming the loop and the spinning
 * method; one that gives the loops short tasks must pass.
 */
class EventLoopStallGuardTest {

    /**
     * Ten times the bound: the guard reports a loop only once a sample of its thread, taken while the probe is
     * late, shows it running, and a watchdog starved by a loaded machine may take its samples late. A 300-ms
     * spin went unreported in a CI run beside stress-ng.
     */
    private static final Duration SPIN = Duration.ofSeconds(1);

    @Test
    void aTaskSpinningASecondOnAReactorNettyLoopFailsTheTestWithTheLoopAndItsStack() {
        Throwable failure = singleFailure(run(SpinsOnTheGlobalLoops.class));
        System.out.println("the guard's report:\n" + failure.getMessage());
        assertThat(failure).isInstanceOf(AssertionError.class)
                .hasMessageContaining("a Netty event loop was busy longer than 100 ms")
                .hasMessageContaining("reactor-http-")
                .hasMessageContaining(EventLoopStallGuardTest.class.getName() + ".spin(");
        long late = Long.parseLong(failure.getMessage().replaceAll("(?s).* ran a task (\\d+) ms late.*", "$1"));
        assertThat(late).as("how late the probe ran, ms").isBetween(100L, 10_000L);
    }

    @Test
    void shortTasksOnTheLoopsPass() {
        run(GivesTheLoopsShortTasks.class).assertStatistics(stats -> stats.started(1).succeeded(1));
    }

    @Test
    void aStallInAReportOnlyMethodIsPrintedNotFailed() {
        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(SpinsOnTheGlobalLoops.class))
                .configurationParameter(EventLoopStallGuard.REPORT_ONLY, EventLoopStallGuardTest.class.getName() + ".spin")
                .execute().testEvents()
                .assertStatistics(stats -> stats.started(1).succeeded(1));
    }

    @Test
    void aWatchedLoopGroupIsCheckedToo() {
        assertThat(singleFailure(run(SpinsOnItsOwnLoop.class)))
                .hasMessageContaining("stall-guard-test-loop")
                .hasMessageContaining(EventLoopStallGuardTest.class.getName() + ".spin(");
    }

    @Test
    void aBoundOfZeroTurnsTheGuardOff() {
        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(SpinsOnTheGlobalLoops.class))
                .configurationParameter(EventLoopStallGuard.BOUND, "0")
                .execute().testEvents()
                .assertStatistics(stats -> stats.started(1).succeeded(1));
    }

    private static Events run(Class<?> testClass) {
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(testClass)).execute().testEvents();
    }

    private static Throwable singleFailure(Events events) {
        events.assertStatistics(stats -> stats.started(1).failed(1));
        return events.failed().stream()
                .map(event -> event.getPayload(TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow())
                .findFirst().orElseThrow();
    }

    /**
     * Busy for {@link #SPIN} of this thread's CPU time, without blocking: what BlockHound does not see (it takes
     * onSpinWait for blocking). CPU time, not wall time: the guard reports a loop only if it ran code for the
     * bound, and beside {@code stress-ng} 300 ms of wall time gave the loop less than 100 ms of a core, so the
     * guard rightly stayed silent and the tests expecting its report failed.
     */
    static void spin() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        LongSupplier clock = threads.isCurrentThreadCpuTimeSupported() ? threads::getCurrentThreadCpuTime
                : System::nanoTime;
        long end = clock.getAsLong() + SPIN.toNanos();
        long iterations = 0;
        while (clock.getAsLong() < end) {
            iterations++;
        }
        spun = iterations;
    }

    @SuppressWarnings("unused")  // written so that the loop above is not optimized away
    private static volatile long spun;

    private static EventLoop globalLoop() {
        return HttpResources.get().onServer(LoopResources.DEFAULT_NATIVE).next();
    }

    @ExtendWith(EventLoopStallGuard.class)
    static class SpinsOnTheGlobalLoops {

        @Test
        void spins() throws Exception {
            // waited for, so that no spin outlives its test: one that went on into the next test (the guard
            // turned off in this one) was that test's stall
            globalLoop().submit(EventLoopStallGuardTest::spin).get(60, TimeUnit.SECONDS);
        }
    }

    @ExtendWith(EventLoopStallGuard.class)
    static class GivesTheLoopsShortTasks {

        @Test
        void shortTasks() throws Exception {
            EventLoop loop = globalLoop();
            for (int i = 0; i < 50; i++) {
                loop.submit(() -> List.of(1, 2, 3).hashCode()).get(10, TimeUnit.SECONDS);
            }
        }
    }

    @ExtendWith(EventLoopStallGuard.class)
    static class SpinsOnItsOwnLoop {

        @Test
        void spins() throws Exception {
            LoopResources loops = LoopResources.create("stall-guard-test-loop", 1, true);
            try {
                EventLoopGroup group = loops.onServer(false);
                EventLoopStallGuard.watch(group);
                group.next().submit(EventLoopStallGuardTest::spin).get(10, TimeUnit.SECONDS);
            } finally {
                loops.disposeLater().block(Duration.ofSeconds(10));
            }
        }
    }
}
