package io.reactiveinformer.informer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.WatchEvent;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * Micrometer binding of {@link InformerMetrics}, every meter tagged {@code informer=<name>}:
 * <ul>
 *   <li>{@code informer_events_total{type}}: watch events by type (ADDED, MODIFIED, DELETED, BOOKMARK);</li>
 *   <li>{@code informer_relists_total}: completed lists and relists;</li>
 *   <li>{@code informer_watch_restarts_total{error}}: failed lists or watches, by error class;</li>
 *   <li>{@code informer_last_sync_age_seconds}: time since the cache last caught up with the server;</li>
 *   <li>{@code informer_subscriber_buffer_depth{subscriber}}: pending notifications of each live
 *       subscriber, removed when the subscriber ends.</li>
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
            events.put(type, Counter.builder("informer_events_total")
                    .tags(tags.and("type", type.name()))
                    .description("Watch events received, by type")
                    .register(registry));
        }
        relists = Counter.builder("informer_relists_total")
                .tags(tags)
                .description("Completed lists and relists")
                .register(registry);
        Gauge.builder("informer_last_sync_age_seconds", gauges, Gauges::lastSyncAgeSeconds)
                .tags(tags)
                .baseUnit("seconds")
                .description("Seconds since the cache last caught up with the server")
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
        Counter.builder("informer_watch_restarts_total")
                .tags(tags.and("error", error.getClass().getSimpleName()))
                .description("Failed lists or watches, restarted after a backoff")
                .register(registry)
                .increment();
    }

    @Override
    public Runnable subscriberAdded(String subscriber, IntSupplier bufferDepth) {
        Gauge gauge = Gauge.builder("informer_subscriber_buffer_depth", bufferDepth, depth -> depth.getAsInt())
                .tags(tags.and("subscriber", subscriber))
                .description("Notifications waiting for the subscriber")
                .strongReference(true)
                .register(registry);
        return () -> registry.remove(gauge);
    }
}
