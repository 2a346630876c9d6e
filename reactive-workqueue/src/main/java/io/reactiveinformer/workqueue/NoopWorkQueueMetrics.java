package io.reactiveinformer.workqueue;

/** Records nothing; lets the queue skip reading the clock for metrics. */
enum NoopWorkQueueMetrics implements WorkQueueMetrics {
    INSTANCE;

    static final WorkQueueMetrics.Provider PROVIDER = (queueName, gauges) -> INSTANCE;

    @Override
    public void added() {}

    @Override
    public void retried() {}

    @Override
    public void queued(long nanos) {}

    @Override
    public void worked(long nanos) {}
}
