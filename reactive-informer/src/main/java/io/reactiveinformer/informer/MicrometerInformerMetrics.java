package io.reactiveinformer.informer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.WatchEvent;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Micrometer binding of {@link InformerMetrics}, every meter tagged {@code informer=<name>}, with
 * dotted names (a Prometheus registry renders them as given in parentheses):
 * <ul>
 *   <li>{@code informer.events{type}} ({@code informer_events_total}): watch events by type (ADDED,
 *       MODIFIED, DELETED, BOOKMARK);</li>
 *   <li>{@code informer.relists} ({@code informer_relists_total}): completed lists and relists;</li>
 *   <li>{@code informer.watch.restarts{error}} ({@code informer_watch_restarts_total}): failed lists or
 *       watches, by error class;</li>
 *   <li>{@code informer.last.sync.age} ({@code informer_last_sync_age_seconds}): time since the cache
 *       last caught up with the server;</li>
 *   <li>{@code informer.shard.filtering.local} ({@code informer_shard_filtering_local}): 1 while the server
 *       ignores the informer's shard selector, so it receives every object and keeps its shard by filtering
 *       locally; 0 otherwise;</li>
 *   <li>{@code informer.user.code.errors{stage}} ({@code informer_user_code_errors_total}): user code that failed
 *       for an object while the informer went on, by {@link UserCodeError.Stage}.</li>
 *   <li>{@code informer.subscriber.buffer.depth{subscriber}} ({@code informer_subscriber_buffer_depth}):
 *       pending notifications of each live subscriber, removed when the subscriber ends;</li>
 *   <li>{@code informer.subscriber.lag{subscriber}} ({@code informer_subscriber_lag_seconds}): how long each
 *       live subscriber's oldest undelivered notification has waited (0 when it has everything), removed
 *       when the subscriber ends.</li>
 * </ul>
 *
 * <p>Only this class touches Micrometer; an informer built without it runs without Micrometer on the
 * classpath.
 */
public final class MicrometerInformerMetrics implements InformerMetrics {

    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<WatchEvent.Type, Counter> events = new EnumMap<>(WatchEvent.Type.class);
    private final Counter relists;

    private MicrometerInformerMetrics(MeterRegistry registry, String informerName, Gauges gauges) {
        this.registry = registry;
        this.tags = Tags.of("informer", informerName);
        for (WatchEvent.Type type : WatchEvent.Type.values()) {
            events.put(type, Counter.builder("informer.events")
                    .tags(tags.and("type", type.name()))
                    .description("Watch events received, by type")
                    .register(registry));
        }
        relists = Counter.builder("informer.relists")
                .tags(tags)
                .description("Completed lists and relists")
                .register(registry);
        Gauge.builder("informer.last.sync.age", gauges, Gauges::lastSyncAgeSeconds)
                .tags(tags)
                .baseUnit("seconds")
                .description("Seconds since the cache last caught up with the server")
                .register(registry);
        Gauge.builder("informer.shard.filtering.local", gauges, Gauges::shardFilteringLocally)
                .tags(tags)
                .description("1 while server-side sharding is unsupported and the informer filters its shard locally")
                .register(registry);
    }

    /** Registers each informer's meters in {@code registry}. */
    public static Provider provider(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        return (informerName, gauges) -> new MicrometerInformerMetrics(registry, informerName, gauges);
    }

    @Override
    public void event(WatchEvent.Type type) {
        events.get(type).increment();
    }

    @Override
    public void relisted(int objects) {
        relists.increment();
    }

    @Override
    public void restarted(KubernetesClientException error) {
        Counter.builder("informer.watch.restarts")
                .tags(tags.and("error", error.getClass().getSimpleName()))
                .description("Failed lists or watches, restarted after a backoff")
                .register(registry)
                .increment();
    }

    @Override
    public void userCodeFailed(UserCodeError.Stage stage) {
        Counter.builder("informer.user.code.errors")
                .tags(tags.and("stage", stage.name()))
                .description("User code (transform, index function, handler, ...) that failed for an object; the informer went on")
                .register(registry)
                .increment();
    }

    @Override
    public Runnable subscriberAdded(String subscriber, IntSupplier bufferDepth, LongSupplier lagNanos) {
        Gauge gauge = Gauge.builder("informer.subscriber.buffer.depth", bufferDepth, depth -> depth.getAsInt())
                .tags(tags.and("subscriber", subscriber))
                .description("Notifications waiting for the subscriber")
                .strongReference(true)
                .register(registry);
        TimeGauge lag = TimeGauge.builder("informer.subscriber.lag", lagNanos, TimeUnit.NANOSECONDS,
                        nanos -> (double) nanos.getAsLong())
                .tags(tags.and("subscriber", subscriber))
                .description("How long the subscriber's oldest undelivered notification has waited")
                .strongReference(true)
                .register(registry);
        return () -> {
            registry.remove(gauge);
            registry.remove(lag);
        };
    }
}
