package io.reactiveinformer.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.informer.InformerMetrics;
import io.reactiveinformer.informer.MicrometerInformerMetrics;
import io.reactiveinformer.workqueue.MicrometerWorkQueueMetrics;
import io.reactiveinformer.workqueue.WorkQueue;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The dotted Micrometer names are exposed on Prometheus under client-go's (and the informer's former) names. */
class PrometheusNamesTest {

    @Test
    void prometheusShowsClientGosNames() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        WorkQueue<String> queue = WorkQueue.<String>builder().name("pods").scheduler(VirtualTimeScheduler.create())
                .metrics(MicrometerWorkQueueMetrics.provider(registry)).build();
        queue.add("a");

        assertThat(families(registry)).containsExactly(
                "workqueue_adds_total",
                "workqueue_depth",
                "workqueue_longest_running_processor_seconds",
                "workqueue_queue_duration_seconds",
                "workqueue_queue_duration_seconds_max", // Micrometer's own timer gauge, under either naming
                "workqueue_retries_total",
                "workqueue_unfinished_work_seconds",
                "workqueue_work_duration_seconds",
                "workqueue_work_duration_seconds_max");
        assertThat(registry.scrape()).contains("workqueue_depth{name=\"pods\"} 1");
    }

    @Test
    void prometheusShowsTheInformerMetricNames() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        InformerMetrics metrics = MicrometerInformerMetrics.provider(registry).register("pods", () -> 3.0);
        metrics.event(WatchEvent.Type.ADDED);
        metrics.relisted(1);
        metrics.restarted(new TransportException("GET /api/v1/pods", null));
        metrics.subscriberAdded("handler", () -> 2, () -> 3_000_000);

        assertThat(families(registry)).containsExactly(
                "informer_events_total",
                "informer_last_sync_age_seconds",
                "informer_relists_total",
                "informer_shard_filtering_local",
                "informer_subscriber_buffer_depth",
                "informer_subscriber_lag_seconds",
                "informer_watch_restarts_total");
        assertThat(registry.scrape()).contains("informer_subscriber_lag_seconds{informer=\"pods\",subscriber=\"handler\"} 0.003");
    }

    private static Set<String> families(PrometheusMeterRegistry registry) {
        Set<String> families = new TreeSet<>();
        for (String line : registry.scrape().split("\n")) {
            if (line.startsWith("# TYPE ")) {
                families.add(line.split(" ")[2]);
            }
        }
        return families;
    }
}
