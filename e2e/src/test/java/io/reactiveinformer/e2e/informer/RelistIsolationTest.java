package io.reactiveinformer.e2e.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * One informer's 100k-object list does not hold up another informer's watch events on the same client:
 * the list is decoded on an event loop a chunk at a time and applied (cache swap, diff, fan-out) on the
 * delivery scheduler, never on the event loop that the other informer's watch shares.
 */
class RelistIsolationTest {

    private static final Logger log = LoggerFactory.getLogger(RelistIsolationTest.class);
    private static final int BIG = 100_000;
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    private final SimulatedApiServer server = SimulatedApiServer.start(ClusterState.builder().historyLimit(BIG + 10_000).build());
    private final KubernetesClient client = server.newClient();
    private final Disposable.Composite running = Disposables.composite();
    private SharedInformerFactory factory;

    @AfterEach
    void stop() {
        running.dispose();
        if (factory != null) {
            factory.shutdown().block(DEADLINE);
        }
        client.close();
        server.close();
    }

    @Test
    void aHundredThousandObjectListDoesNotDelayAnotherInformersEvents() {
        for (int i = 0; i < BIG; i++) {
            server.state().create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("big").name("cm-" + i))
                    .data(Map.of("k", "v" + i)));
        }
        // LIST: this is about a LIST's decode and apply; a streaming list of 100k objects from the simulated
        // server, which shares the JVM's event loops, holds one of them for its burst of initial events.
        factory = SharedInformerFactory.builder(client)
                .reflectorOptions(ReflectorOptions.defaults().withStreamingList(false)).build();
        SharedIndexInformer<V1Secret> small = factory.informer(InformerSpec.of(V1Secret.class).inNamespace("small"));
        List<Long> lags = new CopyOnWriteArrayList<>();
        running.add(small.notifications().subscribe(n -> {
            if (n instanceof Notification.Added<V1Secret> a) {
                lags.add(System.nanoTime() - Long.parseLong(a.object().getMetadata().getAnnotations().get("t")));
            }
        }));
        running.add(small.start());
        StepVerifier.create(small.hasSynced()).expectComplete().verify(DEADLINE);

        SharedIndexInformer<V1ConfigMap> big = factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace("big"));
        long listStart = System.nanoTime();
        running.add(big.notifications().subscribe());
        running.add(big.start());
        // Secrets written every 10 ms while the big informer lists and applies, until it has synced.
        Disposable writer = Flux.interval(Duration.ofMillis(10), Schedulers.parallel())
                .takeUntil(i -> big.isSynced())
                .subscribe(i -> server.state().create(new V1Secret()
                        .metadata(new V1ObjectMeta().namespace("small").name("s-" + i)
                                .annotations(Map.of("t", Long.toString(System.nanoTime()))))));
        running.add(writer);
        StepVerifier.create(big.hasSynced()).expectComplete().verify(DEADLINE);
        long syncMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - listStart);
        StepVerifier.create(Flux.interval(Duration.ofMillis(50)).filter(i -> writer.isDisposed()).next())
                .expectNextCount(1).expectComplete().verify(DEADLINE);

        assertThat(big.indexer().size()).isEqualTo(BIG);
        long max = TimeUnit.NANOSECONDS.toMillis(lags.stream().mapToLong(Long::longValue).max().orElseThrow());
        log.info("{} objects listed and synced in {} ms; meanwhile {} events of another informer, lag max {} ms",
                BIG, syncMillis, lags.size(), max);
        assertThat(lags).as("events of the other informer during the sync").hasSizeGreaterThan(5);
        // The simulated server shares the JVM (and Reactor Netty's event loops) with the client, so its own
        // encoding of the 100k list delays some events; the bound says the other informer was never held for
        // the bulk of the relist, as it was when the apply ran on the event loop that decoded the list.
        assertThat(max).as("worst lag of the other informer's events while %d objects were listed and applied in %d ms",
                BIG, syncMillis).isLessThan(syncMillis / 2);
    }
}
