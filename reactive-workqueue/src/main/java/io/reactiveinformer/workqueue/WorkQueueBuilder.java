package io.reactiveinformer.workqueue;

import java.util.Objects;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Builds a {@link WorkQueue}. Defaults: name {@code "workqueue"}, {@link Schedulers#parallel()}
 * for delays and time, {@link RateLimiter#defaultControllerRateLimiter()}, no metrics.
 *
 * @param <T> the item type
 */
public final class WorkQueueBuilder<T> {

    private String name = "workqueue";
    private boolean named;
    private Scheduler scheduler = Schedulers.parallel();
    private RateLimiter<T> rateLimiter;
    private WorkQueueMetrics.Provider metrics = WorkQueueMetrics.Provider.noop();

    WorkQueueBuilder() {}

    /** The queue's name, the {@code name} tag of its metrics. Required with metrics. */
    public WorkQueueBuilder<T> name(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name must not be empty");
        }
        this.name = name;
        this.named = true;
        return this;
    }

    /**
     * Where delayed items wait and where time is read ({@code scheduler.now}); pass a
     * {@code VirtualTimeScheduler} in tests.
     */
    public WorkQueueBuilder<T> scheduler(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return this;
    }

    /** The limiter behind {@link WorkQueue#addRateLimited}. */
    public WorkQueueBuilder<T> rateLimiter(RateLimiter<T> rateLimiter) {
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        return this;
    }

    /**
     * Where the queue reports its metrics, e.g. {@link MicrometerWorkQueueMetrics#provider}. Metric
     * series are identified by the queue name, so a queue with metrics must be {@link #name named}.
     */
    public WorkQueueBuilder<T> metrics(WorkQueueMetrics.Provider metrics) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        return this;
    }

    /** A new queue. */
    public WorkQueue<T> build() {
        if (metrics != WorkQueueMetrics.Provider.noop() && !named) {
            throw new IllegalStateException("a queue with metrics needs a name(...): its metrics are tagged with it");
        }
        RateLimiter<T> limiter = rateLimiter != null ? rateLimiter : RateLimiter.defaultControllerRateLimiter();
        return new DefaultWorkQueue<>(name, scheduler, limiter, metrics);
    }
}
