package io.reactiveinformer.workqueue;

/**
 * Receives one named queue's measurements. The queue depends only on this interface, so it works
 * without Micrometer on the classpath; {@link MicrometerWorkQueueMetrics} is the Micrometer
 * binding, {@link Provider#noop()} the default.
 *
 * <p>{@link #added()}, {@link #queued} and {@link #worked} are called while the queue holds its
 * internal lock; {@link #retried()} is called before it is taken. All must be cheap and must not
 * block or call back into the queue. Times come from the queue's scheduler.
 */
public interface WorkQueueMetrics {

    /** An item became pending (client-go's {@code workqueue_adds_total}); duplicates do not count. */
    void added();

    /** An item was handed to {@link WorkQueue#addRateLimited} ({@code workqueue_retries_total}). */
    void retried();

    /** An item was handed out after waiting this long in the queue ({@code workqueue_queue_duration_seconds}). */
    void queued(long nanos);

    /** An item was marked done after this long in processing ({@code workqueue_work_duration_seconds}). */
    void worked(long nanos);

    /**
     * Live values of a queue, read when a gauge is sampled. Safe to call from any thread; each call
     * briefly takes the queue's lock.
     */
    interface Gauges {

        /** Items ready to be handed out ({@code workqueue_depth}). */
        int depth();

        /** Seconds all items in processing have been in processing so far ({@code workqueue_unfinished_work_seconds}). */
        double unfinishedWorkSeconds();

        /** Seconds the longest running item has been in processing ({@code workqueue_longest_running_processor_seconds}). */
        double longestRunningProcessorSeconds();
    }

    /** Creates the metrics of one queue when it is built. */
    @FunctionalInterface
    interface Provider {

        /**
         * Registers the metrics of a queue.
         *
         * @param queueName the queue's name, used as the {@code name} tag
         * @param gauges the queue's live values; the queue itself, so hold it weakly if the
         *     registry outlives queues
         */
        WorkQueueMetrics register(String queueName, Gauges gauges);

        /** Records nothing; the default. */
        static Provider noop() {
            return NoopWorkQueueMetrics.PROVIDER;
        }
    }
}
