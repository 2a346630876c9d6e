package io.reactiveinformer.e2e.leader;

import static io.reactiveinformer.e2e.leader.LeaseNamespace.DEADLINE;
import static io.reactiveinformer.e2e.leader.LeaseNamespace.millis;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.leaderelection.ElectionTimings;
import io.reactiveinformer.leaderelection.ShardElector;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.watch.ReflectorOptions;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

/**
 * Sharded caches: replicas of a ConfigMap controller built with {@code sharding(elector, ShardSelector.Key.UID)}
 * over 6 shards cache only the objects of the shards they hold, whether the server filters ({@code
 * ShardedListAndWatch} on: kube-apiserver as {@code testenv/} starts it) or not (the gate off: the simulated
 * server told so), in which case the informers filter and only the bytes received are not cut. Each client
 * reaches the server through its own byte-counting TCP relay, so what each receives is measured on the wire, and
 * a replica is cut off from its Leases by closing its Lease client's relay (a partition). {@code
 * -DshardedCaches.objects=30000} for the size (the default, 3,000, keeps CI short); every object
 * carries 1 KiB of random data.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ShardedCachesContract {

    private static final int OBJECTS = Integer.getInteger("shardedCaches.objects", 3_000);
    private static final int SHARDS = 6;
    private static final ElectionTimings TIMINGS = new ElectionTimings(Duration.ofSeconds(10), Duration.ofSeconds(7),
            Duration.ofSeconds(1));
    /** Lease writes took up to 4 s at a load average of 30 on a shared 2-core machine. */
    private static final long SLACK = 5_000;

    private String namespace;
    private KubernetesClient admin;
    private ResourceClient<V1ConfigMap> maps;
    private final List<Reconcile> reconciles = new CopyOnWriteArrayList<>();
    private final List<String> cacheMisses = new CopyOnWriteArrayList<>();
    private Disposable.Composite running;
    private final List<SharedInformerFactory> factories = new ArrayList<>();
    private final List<KubernetesClient> clients = new ArrayList<>();
    private final List<Relay> relays = new ArrayList<>();

    record Reconcile(int replica, String key, long start, long end) {
    }

    /** The server's admin credentials and address. */
    abstract ClientConfig config();

    /** Whether the server applies shard selectors (the {@code ShardedListAndWatch} gate on). */
    abstract boolean serverFilters();

    /** The informers' options: the defaults unless the server needs otherwise. */
    ReflectorOptions reflectorOptions() {
        return ReflectorOptions.defaults();
    }

    @BeforeAll
    void createObjects() {
        admin = KubernetesClient.create(config());
        namespace = "sharded-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        admin.resource(V1Namespace.class).create(new V1Namespace().apiVersion("v1").kind("Namespace")
                .metadata(new V1ObjectMeta().name(namespace))).block(DEADLINE);
        maps = admin.resource(V1ConfigMap.class).inNamespace(namespace);
        long start = millis();
        // random filler: the server compresses its responses, and a repeated one would cost nothing on the wire
        Flux.range(0, OBJECTS)
                .flatMap(i -> maps.create(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                        .metadata(new V1ObjectMeta().name("map-" + i)).data(Map.of("filler", filler()))), 32)
                .then().block(Duration.ofMinutes(10));
        System.out.printf("sharded caches: %d ConfigMaps created in %d ms%n", OBJECTS, millis() - start);
    }

    private static String filler() {
        byte[] bytes = new byte[768];
        ThreadLocalRandom.current().nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    @BeforeEach
    void newTest() {
        running = Disposables.composite();
    }

    @AfterEach
    void stop() {
        running.dispose();
        factories.forEach(f -> f.shutdown().block(DEADLINE));
        factories.clear();
        clients.forEach(KubernetesClient::close);
        clients.clear();
        relays.forEach(Relay::cut);
        relays.clear();
    }

    @AfterAll
    void deleteNamespace() {
        admin.resource(V1Namespace.class).delete(namespace).onErrorResume(e -> Mono.empty()).block(DEADLINE);
        admin.close();
    }

    @Test
    void anInformerOfATwoShardSelectionReceivesAndCachesAThird() {
        Measured all = measure(null);
        ShardSelector twoOfSix = ShardSelector.shards(ShardSelector.Key.UID, List.of(0, 1), SHARDS);
        Measured third = measure(twoOfSix);

        List<V1ConfigMap> listed = maps.list(ListOptions.none()).block(DEADLINE).items();
        Set<String> expected = new HashSet<>();
        listed.stream().filter(twoOfSix::matches).forEach(m -> expected.add(namespace + "/" + m.getMetadata().getName()));
        System.out.printf("sharded caches, %d objects: unsharded informer %d objects, %d bytes received, %d KB retained;"
                        + " 2 of 6 shards %d objects (%.2f), %d bytes (%.2f), %d KB retained (%.2f)%n", OBJECTS,
                all.objects, all.bytes, all.heap / 1024, third.objects, (double) third.objects / all.objects, third.bytes,
                (double) third.bytes / all.bytes, third.heap / 1024, (double) third.heap / all.heap);
        assertThat(all.objects).isEqualTo(OBJECTS);
        assertThat(third.keys).as("exactly the objects of the two shards").isEqualTo(expected);
        assertThat(third.objects).isBetween(OBJECTS / 5, OBJECTS / 2);
        if (serverFilters()) {
            // what came over the wire shrank with the cache
            assertThat((double) third.bytes / all.bytes).isLessThan((double) third.objects / all.objects + 0.1);
        } else {
            // everything came, and the informer kept its shard
            assertThat((double) third.bytes / all.bytes).isGreaterThan(0.9);
        }
        assertThat(third.filteredLocally).isEqualTo(!serverFilters());
    }

    /** What an informer of the namespace's ConfigMaps with {@code selector} received and retains once synced. */
    private Measured measure(ShardSelector selector) {
        AtomicLong received = new AtomicLong();
        KubernetesClient client = client(relay(received));
        long before = usedHeapAfterGc();
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(reflectorOptions()).build();
        factories.add(factory);
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(namespace).withShardSelector(selector));
        Disposable handle = informer.start();
        try {
            informer.hasSynced().block(Duration.ofMinutes(5));
            long retained = usedHeapAfterGc() - before;
            return new Measured(informer.indexer().size(), Set.copyOf(informer.indexer().listKeys()), received.get(),
                    retained, informer.health().shardFilteringLocally());
        } finally {
            handle.dispose();
        }
    }

    private record Measured(int objects, Set<String> keys, long bytes, long heap, boolean filteredLocally) {
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** A replica of the test: its number, its informer and the relay of its Lease client. */
    private record Live(int replica, SharedIndexInformer<V1ConfigMap> informer, Relay leases, AtomicLong received) {
    }

    private Live start(int replica) {
        AtomicLong received = new AtomicLong();
        Relay leaseRelay = relay(new AtomicLong());
        return new Live(replica, replica(replica, relay(received), leaseRelay), leaseRelay, received);
    }

    /**
     * Rounds ({@code -DshardedCaches.rounds}, default 1) of: three replicas settle at two shards each, caching
     * every object exactly once; one is cut off from its Leases and the two others take its shards over warm;
     * a new replica replaces it.
     */
    @Test
    void threeReplicasSplitTheObjectsAndTheSurvivorsTakeOverACutReplicasShardsWarm() {
        int rounds = Integer.getInteger("shardedCaches.rounds", 1);
        List<Live> live = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            live.add(start(i));
        }
        List<Long> takeovers = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            List<SharedIndexInformer<V1ConfigMap>> informers = live.stream().map(Live::informer).toList();
            long started = millis();
            // six shards, three replicas: two each, each cache holding only its selection (a changed selection is
            // requested before its relist is applied), and together every object exactly once
            await(() -> informers.stream().allMatch(inf -> inf.shardSelector() != null && heldShards(inf) == 2
                    && outsideSelection(inf) == 0) && partition(informers).size() == OBJECTS, Duration.ofMinutes(3),
                    () -> describe(informers));
            System.out.printf("sharded caches, round %d: replicas %s settled %d ms after the last start; cached %s"
                            + " objects, received %s bytes%n", round, live.stream().map(Live::replica).toList(),
                    millis() - started, informers.stream().map(inf -> inf.indexer().size()).toList(),
                    live.stream().map(l -> l.received().get()).toList());

            // one is cut off from its Leases (a partition): its terms end, its cache empties; the others take its
            // shards over
            Live cut = live.remove(round % 3);
            List<Live> others = List.copyOf(live);
            List<Integer> survivors = others.stream().map(Live::replica).toList();
            List<String> ofCut = cut.informer().indexer().listKeys();
            // what a relist costs here and now: the others relist the cut replica's shards before reconciling them
            long listStart = millis();
            maps.list(ListOptions.none()).block(DEADLINE);
            long fullList = millis() - listStart;
            long revoked = millis();
            cut.leases().cut();
            await(() -> cut.informer().indexer().size() == 0
                    && others.stream().mapToInt(l -> l.informer().indexer().size()).sum() == OBJECTS
                    && reconciledSince(revoked, survivors).containsAll(ofCut), Duration.ofMinutes(3),
                    () -> describe(informers));
            long takenOver = reconciles.stream().filter(r -> survivors.contains(r.replica()) && r.start() >= revoked
                    && ofCut.contains(r.key())).mapToLong(Reconcile::start).min().orElseThrow() - revoked;
            long allOfIt = reconciles.stream().filter(r -> survivors.contains(r.replica()) && r.start() >= revoked
                    && ofCut.contains(r.key())).mapToLong(Reconcile::start).max().orElseThrow() - revoked;
            System.out.printf("sharded caches, round %d: replica %d's %d objects reconciled by the others from %d ms to"
                            + " %d ms after it was cut off (lease 10 s, retry 1 s, then the relist of its shards; a LIST"
                            + " of all %d took %d ms)%n", round, cut.replica(), ofCut.size(), takenOver, allOfIt, OBJECTS,
                    fullList);
            assertThat(ofCut).isNotEmpty();
            // the bound: a lease duration and a retry period, then the relist (of a third: bounded by a whole LIST)
            assertThat(takenOver).isLessThanOrEqualTo(TIMINGS.leaseDuration().plus(TIMINGS.retryPeriod()).toMillis()
                    + fullList + SLACK);
            takeovers.add(takenOver);
            live.add(round % 3, start(3 + round));
        }
        List<Long> sorted = takeovers.stream().sorted().toList();
        System.out.printf("sharded caches: takeover after a cut, %d rounds: median %d ms, max %d ms%n", rounds,
                sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
        assertThat(cacheMisses).as("reconciles whose object was not in the replica's cache").isEmpty();
        assertNoOverlapOfOneKey();
    }

    private Set<String> reconciledSince(long since, List<Integer> replicas) {
        Set<String> keys = new HashSet<>();
        for (Reconcile r : List.copyOf(reconciles)) {
            if (r.start() >= since && replicas.contains(r.replica())) {
                keys.add(r.key());
            }
        }
        return keys;
    }

    /** Every cached key, each once; fewer than the sum of the caches when two replicas hold one. */
    private static Set<String> partition(List<SharedIndexInformer<V1ConfigMap>> informers) {
        Set<String> keys = new HashSet<>();
        int total = 0;
        for (SharedIndexInformer<V1ConfigMap> informer : informers) {
            List<String> cached = informer.indexer().listKeys();
            keys.addAll(cached);
            total += cached.size();
        }
        return total == keys.size() ? keys : Set.of();
    }

    /** How many cached objects the informer's current selector does not select. */
    private static long outsideSelection(SharedIndexInformer<V1ConfigMap> informer) {
        ShardSelector held = informer.shardSelector();
        return held == null ? 0 : informer.indexer().list().stream().filter(o -> !held.matches(o)).count();
    }

    private static int heldShards(SharedIndexInformer<V1ConfigMap> informer) {
        ShardSelector selector = informer.shardSelector();
        int held = 0;
        for (int shard = 0; shard < SHARDS; shard++) {
            long first = Long.parseUnsignedLong(
                    io.reactiveinformer.api.ShardRange.split(shard, SHARDS).start().substring(2), 16);
            if (selector.ranges().stream().anyMatch(r -> r.contains(first))) {
                held++;
            }
        }
        return held;
    }

    private SharedIndexInformer<V1ConfigMap> replica(int replica, Relay relay, Relay leaseRelay) {
        KubernetesClient client = client(relay);
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(reflectorOptions()).build();
        factories.add(factory);
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(namespace));
        KubernetesClient leaseClient = client(leaseRelay);
        ShardElector elector = ShardElector.builder(leaseClient.resource(V1Lease.class).inNamespace(namespace),
                "sharded-caches", "replica-" + replica).shards(SHARDS).timings(TIMINGS).build();
        Controller controller = Controller.builder(informer).name("replica-" + replica).maxConcurrentReconciles(4)
                .sharding(elector, ShardSelector.Key.UID)
                .reconciler(request -> {
                    long start = millis();
                    if (informer.indexer().getByKey(request.key()).isEmpty()) {
                        cacheMisses.add(replica + " " + request.key());
                    }
                    return Mono.delay(Duration.ofMillis(5))
                            .doFinally(s -> reconciles.add(new Reconcile(replica, request.key(), start, millis())))
                            .thenReturn(Result.done());
                })
                .build();
        running.add(controller.start());
        running.add(informer.start());
        return informer;
    }

    /** A relay to the server that counts the bytes the server sends into {@code received}. */
    private Relay relay(AtomicLong received) {
        Relay relay = new Relay(config().server(), received);
        relays.add(relay);
        return relay;
    }

    /** An admin client whose every connection goes through {@code relay}. */
    private KubernetesClient client(Relay relay) {
        KubernetesClient client = KubernetesClient.create(config().withServer(relay.uri(config().server())));
        clients.add(client);
        return client;
    }

    /**
     * A TCP relay to the server on a port of its own, counting the bytes the server sends; {@link #cut()} closes
     * it and every connection through it, so that its client meets refused connections from then on.
     */
    private static final class Relay {

        private final Disposable.Composite connections = Disposables.composite();
        private final DisposableServer server;

        Relay(URI target, AtomicLong received) {
            server = TcpServer.create().host("127.0.0.1").port(0)
                    .doOnConnection(connections::add)
                    .handle((in, out) -> TcpClient.create().host(target.getHost()).port(target.getPort()).connect()
                            .flatMap(upstream -> {
                                connections.add(upstream);
                                return Mono.when(
                                                upstream.outbound().send(in.receive().retain()).then(),
                                                out.send(upstream.inbound().receive().retain()
                                                        .doOnNext(buffer -> received.addAndGet(buffer.readableBytes()))).then())
                                        .doFinally(signal -> upstream.dispose());
                            }))
                    .bindNow();
        }

        URI uri(URI target) {
            return URI.create(target.getScheme() + "://127.0.0.1:" + server.port());
        }

        void cut() {
            server.disposeNow();
            connections.dispose();
        }
    }

    private void assertNoOverlapOfOneKey() {
        List<Reconcile> all = List.copyOf(reconciles);
        for (Reconcile a : all) {
            for (Reconcile b : all) {
                if (a.replica() < b.replica() && a.key().equals(b.key())) {
                    assertThat(a.end() <= b.start() || b.end() <= a.start()).as("%s overlaps %s", a, b).isTrue();
                }
            }
        }
    }

    private static void await(java.util.function.BooleanSupplier condition, Duration within) {
        Convergence.until(condition, within, Schedulers.parallel()).block(within.plusSeconds(5));
    }

    private static void await(java.util.function.BooleanSupplier condition, Duration within, Supplier<String> state) {
        try {
            await(condition, within);
        } catch (RuntimeException | AssertionError timeout) {
            throw new AssertionError("did not hold within " + within + "; " + state.get(), timeout);
        }
    }

    /** Each replica's selection, held shards, cache size and health. */
    private static String describe(List<SharedIndexInformer<V1ConfigMap>> informers) {
        StringBuilder b = new StringBuilder();
        for (SharedIndexInformer<V1ConfigMap> informer : informers) {
            b.append(informer.shardSelector()).append(": ").append(heldShards(informer)).append(" shards, ")
                    .append(informer.indexer().size()).append(" cached (")
                    .append(outsideSelection(informer)).append(" outside the selector), ").append(informer.health()).append("; ");
        }
        return b.toString();
    }
}
