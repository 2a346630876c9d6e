package io.reactiveinformer.controller;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.reactiveinformer.workqueue.MicrometerWorkQueueMetrics;
import io.reactiveinformer.workqueue.WorkQueueMetrics;

/**
 * Registers a controller's {@link ReconcileMetrics} with Micrometer, tagged {@code name=<controller>} as its
 * queue's metrics are: {@code controller_read_your_writes_waits_total} with {@code outcome=caught_up} (the
 * cache reached the request's own writes and the reconcile ran) or {@code outcome=requeued} (the bound
 * passed first), and {@code controller_reconcile_timeouts_total}. With the queue's (bound here too), the
 * only meters a controller registers. An {@link EventRecorder}'s counters are registered here too.
 */
final class MicrometerReconcileMetrics {

    private MicrometerReconcileMetrics() {
    }

    /** The queue's meters in {@code registry}. */
    static WorkQueueMetrics.Provider queueMetrics(Object registry) {
        return MicrometerWorkQueueMetrics.provider((MeterRegistry) registry);
    }

    static void register(Object registry, String name, ReconcileMetrics metrics) {
        MeterRegistry meters = (MeterRegistry) registry;
        Tags tags = Tags.of("name", name);
        String waits = "Reconciles that first waited for the informers' caches to see their request's own writes";
        FunctionCounter.builder("controller_read_your_writes_waits_total", metrics, ReconcileMetrics::caughtUp)
                .tags(tags.and("outcome", "caught_up"))
                .description(waits)
                .register(meters);
        FunctionCounter.builder("controller_read_your_writes_waits_total", metrics, ReconcileMetrics::stale)
                .tags(tags.and("outcome", "requeued"))
                .description(waits)
                .register(meters);
        FunctionCounter.builder("controller_reconcile_timeouts_total", metrics, ReconcileMetrics::timeouts)
                .tags(tags)
                .description("Reconciles cancelled by the controller's reconcile timeout")
                .register(meters);
    }

    /** An {@link EventRecorder}'s counters, tagged {@code name=<reportingController>}. */
    static void registerEvents(Object registry, String name, EventRecorder recorder) {
        MeterRegistry meters = (MeterRegistry) registry;
        Tags tags = Tags.of("name", name);
        String dropped = "Events not recorded: the recorder's buffer was full, or the object's rate limit reached";
        FunctionCounter.builder("controller_events_dropped_total", recorder, EventRecorder::droppedBufferFull)
                .tags(tags.and("reason", "buffer_full"))
                .description(dropped)
                .register(meters);
        FunctionCounter.builder("controller_events_dropped_total", recorder, EventRecorder::droppedRateLimited)
                .tags(tags.and("reason", "rate_limited"))
                .description(dropped)
                .register(meters);
        FunctionCounter.builder("controller_events_failed_total", recorder, EventRecorder::failed)
                .tags(tags)
                .description("Event writes given up on: refused by the server, or failing after every attempt")
                .register(meters);
    }
}
