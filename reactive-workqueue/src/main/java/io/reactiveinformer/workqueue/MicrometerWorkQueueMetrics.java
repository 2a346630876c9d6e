package io.reactiveinformer.workqueue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer binding of {@link WorkQueueMetrics}, tagged {@code name=<queue name>}, with Micrometer's
 * dotted names that a Prometheus registry renders as client-go's metric names:
 * {@code workqueue.depth} ({@code workqueue_depth}), {@code workqueue.adds} ({@code workqueue_adds_total}),
 * {@code workqueue.queue.duration} ({@code workqueue_queue_duration_seconds}), {@code workqueue.work.duration}
 * ({@code workqueue_work_duration_seconds}), {@code workqueue.unfinished.work}
 * ({@code workqueue_unfinished_work_seconds}), {@code workqueue.longest.running.processor}
 * ({@code workqueue_longest_running_processor_seconds}), {@code workqueue.retries}
 * ({@code workqueue_retries_total}). The two timers publish client-go's histogram buckets
 * (10 ns to 1000 s, factor 10).
 *
 * <p>Only this class touches Micrometer; a queue built without it runs without Micrometer on the
 * classpath. Gauges hold the queue weakly (Micrometer's default), so a dropped queue reads NaN.
 */
public final class MicrometerWorkQueueMetrics implements WorkQueueMetrics {

    private static final Duration[] BUCKETS = buckets();

    private final Counter adds;
    private final Counter retries;
    private final Timer queueDuration;
    private final Timer workDuration;

    private MicrometerWorkQueueMetrics(MeterRegistry registry, String queueName, Gauges gauges) {
        Tags tags = Tags.of("name", queueName);
        Gauge.builder("workqueue.depth", gauges, Gauges::depth)
                .tags(tags)
                .description("Current depth of the work queue")
                .register(registry);
        Gauge.builder("workqueue.unfinished.work", gauges, Gauges::unfinishedWorkSeconds)
                .tags(tags)
                .baseUnit("seconds")
                .description("Seconds of work in progress not yet observed by work_duration; large values mean stuck workers")
                .register(registry);
        Gauge.builder("workqueue.longest.running.processor", gauges, Gauges::longestRunningProcessorSeconds)
                .tags(tags)
                .baseUnit("seconds")
                .description("Seconds the longest running processor of the work queue has been running")
                .register(registry);
        adds = Counter.builder("workqueue.adds")
                .tags(tags)
                .description("Total number of adds handled by the work queue")
                .register(registry);
        retries = Counter.builder("workqueue.retries")
                .tags(tags)
                .description("Total number of retries handled by the work queue")
                .register(registry);
        queueDuration = Timer.builder("workqueue.queue.duration")
                .tags(tags)
                .serviceLevelObjectives(BUCKETS)
                .description("How long an item stays in the work queue before being requested")
                .register(registry);
        workDuration = Timer.builder("workqueue.work.duration")
                .tags(tags)
                .serviceLevelObjectives(BUCKETS)
                .description("How long processing an item from the work queue takes")
                .register(registry);
    }

    /** A provider that registers every queue's meters in {@code registry}. */
    public static WorkQueueMetrics.Provider provider(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        return (queueName, gauges) -> new MicrometerWorkQueueMetrics(registry, queueName, gauges);
    }

    @Override
    public void added() {
        adds.increment();
    }

    @Override
    public void retried() {
        retries.increment();
    }

    @Override
    public void queued(long nanos) {
        queueDuration.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void worked(long nanos) {
        workDuration.record(nanos, TimeUnit.NANOSECONDS);
    }

    private static Duration[] buckets() {
        Duration[] buckets = new Duration[12];
        long nanos = 10;
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = Duration.ofNanos(nanos);
            nanos *= 10;
        }
        return buckets;
    }
}
