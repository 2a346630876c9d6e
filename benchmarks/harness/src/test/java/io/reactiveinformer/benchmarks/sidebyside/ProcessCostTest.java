package io.reactiveinformer.benchmarks.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ProcessCostTest {

    private static final int MB = 1 << 20;

    /** Keeps the test's arrays from being optimised away. */
    private static volatile byte[] sink;

    @Test
    void countsWhatEveryLiveThreadAllocatedPerUnit() throws InterruptedException {
        CountDownLatch allocated = new CountDownLatch(1);
        CountDownLatch measured = new CountDownLatch(1);
        ProcessCost cost = ProcessCost.start();
        sink = new byte[8 * MB];
        Thread other = new Thread(() -> {
            sink = new byte[4 * MB];
            allocated.countDown();
            awaitQuietly(measured);
        });
        other.start();
        allocated.await();
        Map<String, Object> m = cost.per("window", "unit", 2);
        measured.countDown();
        other.join();

        // this thread's 8 MB and the other thread's 4 MB, which is still alive, over 2 units
        assertThat((long) m.get("window_alloc_bytes_per_unit")).isGreaterThanOrEqualTo(6L * MB);
        assertThat(m).containsKeys("window_cpu_us_per_unit", "window_threads_ended");
    }

    @Test
    void reportsAThreadThatEndedWithinTheWindow() throws InterruptedException {
        ProcessCost cost = ProcessCost.start();
        Thread gone = new Thread(() -> sink = new byte[4 * MB]);
        gone.start();
        gone.join();

        assertThat((long) cost.per("window", "unit", 1).get("window_threads_ended")).isGreaterThanOrEqualTo(1L);
    }

    @Test
    void countsTheCpuTimeSpent() {
        ProcessCost cost = ProcessCost.start();
        burnCpuMillis(200);

        // the process clock counts in 10 ms ticks, read at both ends
        assertThat((double) cost.per("window", "unit", 2).get("window_cpu_us_per_unit")).isGreaterThanOrEqualTo(90_000.0);
    }

    private static void burnCpuMillis(long millis) {
        var threads = ManagementFactory.getThreadMXBean();
        long end = threads.getCurrentThreadCpuTime() + millis * 1_000_000;
        long x = 0;
        while (threads.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x = x * 31 + i;
            }
        }
        sink = new byte[(int) (x & 1)];
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
