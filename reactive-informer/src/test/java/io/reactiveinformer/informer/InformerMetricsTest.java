package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.ShardSelector;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.test.scheduler.VirtualTimeScheduler;

class InformerMetricsTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakePodServer server = new FakePodServer(time);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void eventsRelistsRestartsSyncAgeAndBufferDepth() {
        server.failNextLists(1, FakePodServer.forbidden());
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server).name("pods")
                .scheduler(time).metrics(MicrometerInformerMetrics.provider(registry))
                .reflectorOptions(ReflectorOptions.defaults().withBackoff(Backoff.defaults().withJitter(0)))
                .build();
        BaseSubscriber<Notification<V1Pod>> idle = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {
                // requests nothing: everything stays in its buffer
            }
        };
        informer.notifications(SubscriberOptions.defaults().withName("idle")).subscribe(idle);
        assertThat(registry.get("informer.last.sync.age").gauge().value()).isNaN();
        Disposable stop = informer.start();
        time.advanceTimeBy(Duration.ofMillis(800));

        server.put("a", "p1", "1");
        server.put("a", "p1", "2");
        server.put("a", "p2", "1");
        server.delete("a/p2");
        server.bookmark();
        time.advanceTimeBy(Duration.ofSeconds(3));

        assertThat(registry.get("informer.events").tag("informer", "pods").tag("type", "ADDED").counter().count())
                .isEqualTo(2);
        assertThat(registry.get("informer.events").tag("type", "MODIFIED").counter().count()).isEqualTo(1);
        assertThat(registry.get("informer.events").tag("type", "DELETED").counter().count()).isEqualTo(1);
        assertThat(registry.get("informer.events").tag("type", "BOOKMARK").counter().count()).isEqualTo(1);
        assertThat(registry.get("informer.relists").counter().count()).isEqualTo(1);
        assertThat(registry.get("informer.watch.restarts").tag("error", "Forbidden").counter().count())
                .isEqualTo(1);
        // Micrometer holds a gauge's object weakly: after a collection the gauge must still read the informer
        System.gc();
        assertThat(registry.get("informer.last.sync.age").gauge().value()).isEqualTo(3.0);
        // Coalesced: p1 (add merged with update) and p2 (add then delete).
        assertThat(registry.get("informer.subscriber.buffer.depth").tag("subscriber", "idle").gauge().value())
                .isEqualTo(2);

        idle.dispose();
        assertThat(registry.find("informer.subscriber.buffer.depth").gauges()).isEmpty();
        stop.dispose();
    }

    @ParameterizedTest(name = "the server ignores shard selectors: {0}")
    @ValueSource(booleans = {true, false})
    void aShardSelectorTheServerIgnoresIsAGaugeOfOne(boolean ignored) {
        server.ignoresShardSelectors = ignored;
        server.put("a", "p1", "1");
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(InformerSpec.of(V1Pod.class)
                        .withShardSelector(ShardSelector.shard(ShardSelector.Key.NAMESPACE, 0, 2)), server)
                .name("pods").scheduler(time).metrics(MicrometerInformerMetrics.provider(registry)).build();
        assertThat(registry.get("informer.shard.filtering.local").gauge().value()).isZero();
        Disposable stop = informer.start();
        time.advanceTime();

        assertThat(informer.isSynced()).isTrue();
        assertThat(registry.get("informer.shard.filtering.local").tag("informer", "pods").gauge().value())
                .isEqualTo(ignored ? 1 : 0);
        assertThat(informer.health().shardFilteringLocally()).isEqualTo(ignored);
        stop.dispose();
    }
}
