package io.reactiveinformer.e2e.leader;

import static io.reactiveinformer.e2e.leader.LeaseNamespace.DEADLINE;
import static io.reactiveinformer.e2e.leader.LeaseNamespace.millis;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Lease;
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
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
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
 * Sharded caches on the real kube-apiserver (its {@code ShardedListAndWatch} gate on): replicas of a ConfigMap
 * controller built with {@code sharding(elector, ShardSelector.Key.UID)} over 6 shards cache only the objects of
 * the shards they hold. Each replica's client reaches the server through its own byte-counting TCP relay, so
 * what each receives is measured on the wire. {@code -DshardedCaches.objects=30000} for the size (the
 * default, 3,000, keeps CI short); every object carries 1 KiB of random data.
 */
@KubeApiServerTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShardedCachesE2eTest {

    private static final int OBJECTS = Integer.getInteger("shardedCaches.objects", 3_000);
    private static final int SHARDS = 6;
    private static final ElectionTimings TIMINGS = new ElectionTimings(Duration.ofSeconds(10), Duration.ofSeconds(7),
            Duration.ofSeconds(1));
    /** Lease writes took up to 4 s at a load average of 30 on a shared 2-core machine. */
    private static final long SLACK = 5_000;

    private final KubeApiServer env;
    private LeaseNamespace namespace;
    private ResourceClient<V1ConfigMap> maps;
    private final List<Reconcile> reconciles = new CopyOnWriteArrayList<>();
    private final List<String> cacheMisses = new CopyOnWriteArrayList<>();
    private Disposable.Composite running;
    private final List<SharedInformerFactory> factories = new ArrayList<>();
    private final List<KubernetesClient> clients = new ArrayList<>();

    record Reconcile(int replica, String key, long start, long end) {
    }

    ShardedCachesE2eTest(KubeApiServer env) {
        this.env = env;
    }

    @BeforeAll
    void createObjects() {
        namespace = new LeaseNamespace(env, "sharded");
        maps = namespace.admin.resource(V1ConfigMap.class).inNamespace(namespace.name);
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
    }

    @AfterAll
    void deleteNamespace() {
        namespace.close();
    }

    @Test
    void anInformerOfATwoShardSelectionReceivesAndCachesAThird() {
        Measured all = measure(null);
        ShardSelector twoOfSix = ShardSelector.shards(ShardSelector.Key.UID, List.of(0, 1), SHARDS);
        Measured third = measure(twoOfSix);

        List<V1ConfigMap> listed = maps.list(ListOptions.none()).block(DEADLINE).items();
        Set<String> expected = new HashSet<>();
        listed.stream().filter(twoOfSix::matches).forEach(m -> expected.add(namespace.name + "/" + m.getMetadata().getName()));
        System.out.printf("sharded caches, %d objects: unsharded informer %d objects, %d bytes received, %d KB retained;"
                        + " 2 of 6 shards %d objects (%.2f), %d bytes (%.2f), %d KB retained (%.2f)%n", OBJECTS,
                all.objects, all.bytes, all.heap / 1024, third.objects, (double) third.objects / all.objects, third.bytes,
                (double) third.bytes / all.bytes, third.heap / 1024, (double) third.heap / all.heap);
        assertThat(all.objects).isEqualTo(OBJECTS);
        assertThat(third.keys).as("exactly the objects of the two shards").isEqualTo(expected);
        assertThat(third.objects).isBetween(OBJECTS / 5, OBJECTS / 2);
        // the server filtered: what came over the wire shrank with the cache (client-side filtering would not)
        assertThat((double) third.bytes / all.bytes).isLessThan((double) third.objects / all.objects + 0.1);
        assertThat(third.filteredLocally).isFalse();
    }

    /** What an informer of the namespace's ConfigMaps with {@code selector} received and retains once synced. */
    private Measured measure(ShardSelector selector) {
        AtomicLong received = new AtomicLong();
        KubernetesClient client = client(received);
        long before = usedHeapAfterGc();
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        factories.add(factory);
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(namespace.name).withShardSelector(selector));
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

    @Test
    void threeReplicasSplitTheObjectsAndTheSurvivorsTakeOverACutReplicasShardsWarm() {
        namespace.grantLeases();
        List<SharedIndexInformer<V1ConfigMap>> informers = new ArrayList<>();
        List<AtomicLong> received = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            AtomicLong bytes = new AtomicLong();
            received.add(bytes);
            informers.add(replica(i, bytes));
        }
        long started = millis();
        // six shards, three replicas: two each, and together every object exactly once
        await(() -> informers.stream().allMatch(inf -> inf.shardSelector() != null && heldShards(inf) == 2)
                && partition(informers).size() == OBJECTS, Duration.ofMinutes(3), () -> describe(informers));
        System.out.printf("sharded caches: 3 replicas settled %d ms after starting; cached %s objects, received %s"
                + " bytes%n", millis() - started, informers.stream().map(inf -> inf.indexer().size()).toList(),
                received.stream().map(AtomicLong::get).toList());
        for (SharedIndexInformer<V1ConfigMap> informer : informers) {
            ShardSelector held = informer.shardSelector();
            assertThat(informer.indexer().list()).allMatch(held::matches);
        }

        // replica 0 is cut off from its Leases: its terms end, its cache empties; 1 and 2 take its shards
        List<String> ofCut = informers.get(0).indexer().listKeys();
        long revoked = millis();
        namespace.revokeLeases();
        await(() -> informers.get(0).indexer().size() == 0
                && informers.get(1).indexer().size() + informers.get(2).indexer().size() == OBJECTS
                && reconciledSince(revoked, List.of(1, 2)).containsAll(ofCut), Duration.ofMinutes(3),
                () -> describe(informers));
        long takenOver = reconciles.stream().filter(r -> r.replica() != 0 && r.start() >= revoked
                && ofCut.contains(r.key())).mapToLong(Reconcile::start).min().orElseThrow() - revoked;
        long allOfIt = reconciles.stream().filter(r -> r.replica() != 0 && r.start() >= revoked
                && ofCut.contains(r.key())).mapToLong(Reconcile::start).max().orElseThrow() - revoked;
        System.out.printf("sharded caches: replica 0's %d objects reconciled by the others from %d ms to %d ms after it"
                + " was cut off (lease 10 s, retry 1 s, then the relist of its shards)%n", ofCut.size(), takenOver, allOfIt);
        assertThat(ofCut).isNotEmpty();
        assertThat(takenOver).isLessThanOrEqualTo(TIMINGS.leaseDuration().plus(TIMINGS.retryPeriod()).toMillis() + SLACK);
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

    private SharedIndexInformer<V1ConfigMap> replica(int replica, AtomicLong received) {
        KubernetesClient client = client(received);
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        factories.add(factory);
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(namespace.name));
        KubernetesClient leaseClient = replica == 0 ? namespace.restricted : namespace.admin;
        ShardElector elector = ShardElector.builder(leaseClient.resource(V1Lease.class).inNamespace(namespace.name),
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

    /** An admin client whose every connection goes through a relay that counts the bytes the server sends. */
    private KubernetesClient client(AtomicLong received) {
        URI server = ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin").server();
        DisposableServer relay = TcpServer.create().host("127.0.0.1").port(0)
                .handle((in, out) -> TcpClient.create().host(server.getHost()).port(server.getPort()).connect()
                        .flatMap(upstream -> Mono.when(
                                        upstream.outbound().send(in.receive().retain()).then(),
                                        out.send(upstream.inbound().receive().retain()
                                                .doOnNext(buffer -> received.addAndGet(buffer.readableBytes()))).then())
                                .doFinally(signal -> upstream.dispose())))
                .bindNow();
        running.add(relay);
        KubernetesClient client = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin")
                .withServer(URI.create("https://127.0.0.1:" + relay.port())));
        clients.add(client);
        return client;
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
                    .append(informer.indexer().size()).append(" cached, ").append(informer.health()).append("; ");
        }
        return b.toString();
    }
}
