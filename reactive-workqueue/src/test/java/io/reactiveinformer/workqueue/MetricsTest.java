package io.reactiveinformer.workqueue;

import static io.reactiveinformer.workqueue.Queues.tryGet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

class MetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final WorkQueue<String> queue = WorkQueue.<String>builder()
            .name("pods")
            .scheduler(time)
            .metrics(MicrometerWorkQueueMetrics.provider(registry))
            .build();

    private double gauge(String name) {
        return registry.get(name).tag("name", "pods").gauge().value();
    }

    private double counter(String name) {
        return registry.get(name).tag("name", "pods").counter().count();
    }

    private Timer timer(String name) {
        return registry.get(name).tag("name", "pods").timer();
    }

    @Test
    void recordsClientGosMetricsInSchedulerTime() {
        queue.add("a");
        queue.add("b");
        queue.add("a");
        assertThat(counter("workqueue.adds")).isEqualTo(2);
        assertThat(gauge("workqueue.depth")).isEqualTo(2);

        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(tryGet(queue)).isEqualTo("a");
        assertThat(gauge("workqueue.depth")).isEqualTo(1);
        assertThat(timer("workqueue.queue.duration").count()).isEqualTo(1);
        assertThat(timer("workqueue.queue.duration").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(10);

        time.advanceTimeBy(Duration.ofMillis(30));
        assertThat(gauge("workqueue.unfinished.work")).isCloseTo(0.030, within(1e-9));
        assertThat(gauge("workqueue.longest.running.processor")).isCloseTo(0.030, within(1e-9));

        assertThat(tryGet(queue)).isEqualTo("b");
        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(gauge("workqueue.unfinished.work")).isCloseTo(0.050, within(1e-9));
        assertThat(gauge("workqueue.longest.running.processor")).isCloseTo(0.040, within(1e-9));

        queue.done("a");
        assertThat(timer("workqueue.work.duration").count()).isEqualTo(1);
        assertThat(timer("workqueue.work.duration").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(40);
        assertThat(gauge("workqueue.longest.running.processor")).isCloseTo(0.010, within(1e-9));
        queue.done("b");
        assertThat(gauge("workqueue.unfinished.work")).isZero();
        assertThat(gauge("workqueue.depth")).isZero();
    }

    @Test
    void countsRetriesAndAddsWhenDelayedItemsBecomeReady() {
        queue.addRateLimited("a");
        queue.addAfter("b", Duration.ofMillis(1));
        assertThat(counter("workqueue.retries")).isEqualTo(1);
        assertThat(counter("workqueue.adds")).isZero();

        time.advanceTimeBy(Duration.ofMillis(5));
        assertThat(counter("workqueue.adds")).isEqualTo(2);
    }

    @Test
    void timersPublishClientGosBuckets() {
        queue.add("a");
        time.advanceTimeBy(Duration.ofMillis(2));
        tryGet(queue);

        var buckets = timer("workqueue.queue.duration").takeSnapshot().histogramCounts();
        assertThat(buckets).hasSize(12);
        assertThat(buckets[0].bucket(TimeUnit.SECONDS)).isCloseTo(1e-8, within(1e-12));
        assertThat(buckets[11].bucket(TimeUnit.SECONDS)).isCloseTo(1000, within(1e-6));
    }
}
