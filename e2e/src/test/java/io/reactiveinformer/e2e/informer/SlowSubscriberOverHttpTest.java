package io.reactiveinformer.e2e.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.informer.HandlerRegistration;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.test.Churn;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A heavily delayed coalescing subscriber and a fast one on the same informer, over HTTP: the fast one
 * keeps up with the churn while the slow one lags, the slow one's buffer never holds more entries than
 * there are keys, and once it speeds up it still reaches every final state.
 */
class SlowSubscriberOverHttpTest {

    private static final String NS = "slow";
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private SimulatedApiServer server;
    private KubernetesClient client;
    private SharedInformerFactory factory;
    private final Disposable.Composite subscriptions = Disposables.composite();

    @BeforeEach
    void start() {
        server = SimulatedApiServer.start(ClusterState.builder().bookmarkInterval(Duration.ofMillis(200)).build());
        client = server.newClient();
        factory = SharedInformerFactory.builder(client).reflectorOptions(SimulatedServerFaultsTest.FAST).build();
    }

    @AfterEach
    void stop() {
        subscriptions.dispose();
        factory.shutdown().block(DEADLINE);
        client.close();
        server.close();
    }

    @Test
    void fastSubscriberKeepsUpWhileTheSlowOneCoalescesWithinTheKeyCount() {
        ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class).inNamespace(NS);
        Churn churn = new Churn(server.state(), ResourceType.of(V1ConfigMap.class), NS, 21);
        churn.run(50);
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(NS));

        NotificationLog<V1ConfigMap> fast = new NotificationLog<>();
        subscriptions.add(informer.notifications(SubscriberOptions.defaults().unbounded().withName("fast")).subscribe(fast));
        AtomicBoolean slowDown = new AtomicBoolean(true);
        NotificationLog<V1ConfigMap> slow = new NotificationLog<>();
        HandlerRegistration<V1ConfigMap> slowHandler = informer.register(SubscriberOptions.defaults().withName("slow"));
        subscriptions.add(slowHandler.notifications()
                .concatMap(n -> Mono.defer(() -> slowDown.get() ? Mono.delay(Duration.ofMillis(200)) : Mono.empty())
                        .thenReturn(n), 1)
                .subscribe(slow));
        factory.start();

        StepVerifier.create(churn.every(Duration.ofMillis(2), 1000).then()).expectComplete().verify(DEADLINE);
        StepVerifier.create(Convergence.cacheMatchesList(informer.indexer()::list, ListerWatcher.of(maps), DEADLINE, Schedulers.parallel())
                        .then(Convergence.cacheMatchesList(fast::view, ListerWatcher.of(maps), DEADLINE, Schedulers.parallel())))
                .expectComplete()
                .verify(DEADLINE.multipliedBy(2));
        int keys = fast.keys().size();
        assertThat(slowHandler.bufferDepth()).as("the slow subscriber still lags when the fast one has caught up")
                .isPositive();
        assertThat(slow.count()).isLessThan(fast.count());
        assertThat(slowHandler.maxBufferDepth()).as("pending entries of the slow subscriber, against %d keys", keys)
                .isGreaterThan(50)
                .isLessThanOrEqualTo(keys);

        slowDown.set(false);
        StepVerifier.create(Convergence.cacheMatchesList(slow::view, ListerWatcher.of(maps), DEADLINE, Schedulers.parallel()))
                .expectComplete()
                .verify(DEADLINE.plusSeconds(5));
        List<String> listed = List.copyOf(Convergence.versions(maps.list(ListOptions.none()).block(DEADLINE).items()).keySet());
        assertThat(fast.missedDeletions(listed)).isEmpty();
        assertThat(slow.missedDeletions(listed)).isEmpty();
        assertThat(slowHandler.maxBufferDepth()).isLessThanOrEqualTo(keys);
    }
}
