package io.reactiveinformer.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.InMemoryListerWatcher;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A reconciler that counts in an annotation (reads the count from the cache, writes count + 1) and looks again
 * 100 ms later, against an informer that sees each change a second after the server made it. Marked with
 * {@link Writes#observedBy}, no reconcile reads a version older than its request's last write and no
 * increment is lost; unmarked, the same reconciler reads its own stale state and counts wrong.
 */
@Timeout(30)
class ReadYourWritesTest {

    private static final Duration LAG = Duration.ofSeconds(1);
    private static final int WRITES = 5;

    private final List<Disposable> toStop = new ArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        // last started, first stopped: the clock goes last, so nothing stops on a disposed scheduler
        for (int i = toStop.size() - 1; i >= 0; i--) {
            toStop.get(i).dispose();
        }
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
    }

    /** What the counting reconciler saw: per reconcile, the version it read and the version its request last wrote. */
    private static final class Counter {
        final List<long[]> reads = new CopyOnWriteArrayList<>();
        final Map<String, Long> lastWritten = new HashMap<>();
        final AtomicInteger writes = new AtomicInteger();

        int staleReads() {
            return (int) reads.stream().filter(r -> r[0] < r[1]).count();
        }
    }

    /**
     * @param write writes the map (without its resourceVersion: an unconditional update, as a patch would
     *              be) and returns it as stored
     */
    private static Reconciler counting(SharedIndexInformer<V1ConfigMap> informer, Counter counter,
                                                            Function<V1ConfigMap, Mono<V1ConfigMap>> write, boolean observed) {
        return request -> {
            V1ConfigMap cached = informer.lister().namespace(request.namespace()).get(request.name()).orElseThrow();
            long read = Long.parseLong(cached.getMetadata().getResourceVersion());
            synchronized (counter) {
                counter.reads.add(new long[] {read, counter.lastWritten.getOrDefault(request.key(), 0L)});
            }
            if (counter.writes.get() >= WRITES) {
                return Mono.just(Result.done());
            }
            int count = Integer.parseInt(cached.getMetadata().getAnnotations().get("count"));
            V1ConfigMap next = new V1ConfigMap().metadata(new V1ObjectMeta().namespace(request.namespace())
                    .name(request.name()).annotations(Map.of("count", Integer.toString(count + 1))));
            Mono<V1ConfigMap> written = write.apply(next);
            return (observed ? written.transform(Writes.observedBy(informer)) : written)
                    .doOnNext(stored -> {
                        counter.writes.incrementAndGet();
                        synchronized (counter) {
                            counter.lastWritten.put(request.key(), Long.parseLong(stored.getMetadata().getResourceVersion()));
                        }
                    })
                    .thenReturn(Result.requeueAfter(Duration.ofMillis(100)));
        };
    }

    private static V1ConfigMap counterMap() {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name("counter")
                .annotations(Map.of("count", "0")));
    }

    private record Run(ClusterState state, Counter counter, SimpleMeterRegistry meters) {

        int count() {
            return Integer.parseInt(state.find(ResourceType.of(V1ConfigMap.class), "default", "counter").orElseThrow()
                    .getMetadata().getAnnotations().get("count"));
        }

        double waits(String outcome) {
            return meters.get("controller_read_your_writes_waits_total").tag("outcome", outcome).functionCounter().count();
        }
    }

    private Run runInVirtualTime(VirtualTimeScheduler time, Duration lag, Duration bound, boolean observed) {
        ClusterState state = ClusterState.builder().scheduler(time).build();
        state.create(counterMap());
        SharedIndexInformer<V1ConfigMap> informer = SharedIndexInformer.builder(V1ConfigMap.class,
                new LaggingListerWatcher<>(InMemoryListerWatcher.of(state, ResourceType.of(V1ConfigMap.class)), lag, time))
                .scheduler(time).build();
        Counter counter = new Counter();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        toStop.add(Controller.builder(informer).name("counter").scheduler(time).meterRegistry(meters)
                .readYourWritesTimeout(bound)
                .reconciler(counting(informer, counter, map -> Mono.fromCallable(() -> state.update(map)), observed))
                .build().start());
        toStop.add(() -> informer.start().dispose());
        return new Run(state, counter, meters);
    }

    @Test
    void eachReconcileReadsItsRequestsOwnLastWriteInVirtualTime() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        toStop.add(time);
        Run run = runInVirtualTime(time, LAG, Duration.ofSeconds(10), true);

        time.advanceTimeBy(Duration.ofSeconds(30));

        assertThat(run.counter().writes).hasValue(WRITES);
        assertThat(run.counter().staleReads()).as("reconciles that read a version older than their own last write")
                .isZero();
        assertThat(run.count()).as("no increment lost").isEqualTo(WRITES);
        assertThat(run.waits("caught_up")).as("every reconcile after a write waited for it").isEqualTo(WRITES);
        assertThat(run.waits("requeued")).isZero();
    }

    @Test
    void withoutMarkingTheWritesTheSameReconcilerReadsItsOwnStaleStateInVirtualTime() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        toStop.add(time);
        Run run = runInVirtualTime(time, LAG, Duration.ofSeconds(10), false);

        time.advanceTimeBy(Duration.ofSeconds(30));

        assertThat(run.counter().writes).hasValue(WRITES);
        assertThat(run.counter().staleReads()).as("stale reads without the guarantee").isGreaterThan(0);
        assertThat(run.count()).as("increments lost to stale reads").isLessThan(WRITES);
        assertThat(run.waits("caught_up")).isZero();
    }

    @Test
    void aCacheThatLagsBeyondTheBoundRequeuesWithoutReconcilingUntilItCatchesUpInVirtualTime() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        toStop.add(time);
        Run run = runInVirtualTime(time, Duration.ofSeconds(20), Duration.ofSeconds(1), true);

        time.advanceTimeBy(Duration.ofMillis(19_900));
        assertThat(run.counter().reads).as("only the first reconcile ran: the later attempts found the cache stale")
                .hasSize(1);
        // attempts at 0.1 s, then after each 1-s wait the limiter's 5 ms, 10 ms, 20 ms, ...: waits end at 1.1, 2.105,
        // 3.115, 4.135, 5.175, 6.255, 7.415, 8.735, 10.375, 12.655 and 16.215 s (the next attempt is due at 21.335 s)
        assertThat(run.waits("requeued")).isEqualTo(11);

        time.advanceTimeBy(Duration.ofMillis(200));
        assertThat(run.counter().reads).as("the write reached the cache at 20 s, and its change queued the request")
                .hasSize(2);
        assertThat(run.counter().staleReads()).isZero();
        assertThat(run.waits("caught_up")).isEqualTo(1);
    }

    @Test
    void eachReconcileReadsItsOwnLastWriteOverHttpOnRealThreads() {
        SimulatedApiServer server = SimulatedApiServer.start();
        toClose.add(server);
        KubernetesClient client = KubernetesClient.create(ClientConfig.forServer(server.url()));
        toClose.add(client);
        ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class).inNamespace("default");
        server.state().create(counterMap());
        Scheduler scheduler = Schedulers.parallel();
        ListerWatcher<V1ConfigMap> lagging = new LaggingListerWatcher<>(ListerWatcher.of(maps), Duration.ofMillis(300), scheduler);
        SharedIndexInformer<V1ConfigMap> informer = SharedIndexInformer.builder(V1ConfigMap.class, lagging).build();
        Counter counter = new Counter();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        toStop.add(Controller.builder(informer).name("counter").meterRegistry(meters)
                .reconciler(counting(informer, counter, maps::replace, true)).build().start());
        toStop.add(() -> informer.start().dispose());
        Run run = new Run(server.state(), counter, meters);

        StepVerifier.create(Convergence.until(() -> counter.reads.size() > WRITES, Duration.ofSeconds(20), scheduler))
                .verifyComplete();

        assertThat(counter.staleReads()).isZero();
        assertThat(run.count()).isEqualTo(WRITES);
        assertThat(run.waits("caught_up")).isEqualTo(WRITES);
    }
}
