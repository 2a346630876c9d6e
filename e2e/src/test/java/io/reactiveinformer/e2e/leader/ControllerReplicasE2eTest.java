package io.reactiveinformer.e2e.leader;

import static io.reactiveinformer.e2e.leader.LeaseNamespace.DEADLINE;
import static io.reactiveinformer.e2e.leader.LeaseNamespace.millis;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.leaderelection.ElectionTimings;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.leaderelection.ShardElector;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
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

/**
 * Three replicas of a ConfigMap controller on the real kube-apiserver, leader-elected or sharded (4 shards),
 * with lease 10 s, renew deadline 7 s, retry 1 s, while ConfigMaps change every 50 ms. Every reconcile is
 * recorded with its replica, key, the resourceVersion it read and its start and end on one monotonic clock
 * (all replicas run in this JVM). Replica 0 uses the restricted identity for its Leases, so revoking that
 * identity's access cuts its renewals while it keeps running, as a partitioned pod would.
 */
@KubeApiServerTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControllerReplicasE2eTest {

    private static final int MAPS = 30;
    /** Lease writes took up to 4 s at a load average of 30 on this shared 2-core machine. */
    private static final long SLACK = 5_000;
    /**
     * Longer than the failover test's: here three replicas write their Leases while ConfigMaps change 20
     * times a second, on a shared 2-core machine where a Lease write sometimes took 4 s.
     */
    private static final ElectionTimings FAST = new ElectionTimings(Duration.ofSeconds(10), Duration.ofSeconds(7),
            Duration.ofSeconds(1));

    private final KubeApiServer env;
    private LeaseNamespace namespace;
    private ResourceClient<V1ConfigMap> maps;
    private final List<Reconcile> reconciles = new CopyOnWriteArrayList<>();
    private Disposable.Composite running;
    private final List<SharedInformerFactory> factories = new ArrayList<>();
    private final AtomicLong touches = new AtomicLong();

    record Reconcile(int replica, String key, long resourceVersion, long start, long end) {
    }

    ControllerReplicasE2eTest(KubeApiServer env) {
        this.env = env;
    }

    @BeforeAll
    void createNamespace() {
        namespace = new LeaseNamespace(env, "replicas");
        maps = namespace.admin.resource(V1ConfigMap.class).inNamespace(namespace.name);
        Flux.range(0, MAPS)
                .flatMap(i -> maps.create(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                        .metadata(new V1ObjectMeta().name("map-" + i)).data(Map.of("n", "0"))))
                .then().block(DEADLINE);
    }

    @BeforeEach
    void grantLeases() {
        running = Disposables.composite();
        namespace.grantLeases();
    }

    @AfterEach
    void stopReplicas() {
        running.dispose();
        factories.forEach(f -> f.shutdown().block(DEADLINE));
        factories.clear();
        reconciles.clear();
    }

    @AfterAll
    void deleteNamespace() {
        namespace.close();
    }

    /** Replica {@code replica} of the controller, configured by {@code election}; returns its handle. */
    private Disposable replica(int replica, BiFunction<Controller.Builder<V1ConfigMap>, KubernetesClient,
            Controller.Builder<V1ConfigMap>> election) {
        SharedInformerFactory factory = SharedInformerFactory.builder(namespace.admin).build();
        factories.add(factory);
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(namespace.name));
        Controller.Builder<V1ConfigMap> builder = Controller.builder(informer).name("replica-" + replica)
                .maxConcurrentReconciles(4)
                .reconciler(request -> {
                    long start = millis();
                    long version = informer.indexer().getByKey(request.key())
                            .map(m -> Long.parseLong(m.getMetadata().getResourceVersion())).orElse(-1L);
                    return Mono.delay(Duration.ofMillis(30))
                            .doFinally(s -> reconciles.add(new Reconcile(replica, request.key(), version, start, millis())))
                            .thenReturn(Result.done());
                });
        Disposable handle = election.apply(builder, replica == 0 ? namespace.restricted : namespace.admin).build().start();
        running.add(handle);
        running.add(informer.start());
        return handle;
    }

    private ResourceClient<V1Lease> leases(KubernetesClient client) {
        return client.resource(V1Lease.class).inNamespace(namespace.name);
    }

    /** Changes one ConfigMap every 50 ms, round robin, until disposed. */
    private Disposable churn() {
        AtomicLong n = new AtomicLong();
        Disposable churn = Flux.interval(Duration.ofMillis(50))
                .onBackpressureDrop()
                .concatMap(i -> maps.patch("map-" + (i % MAPS), PatchType.MERGE,
                                "{\"data\":{\"n\":\"" + n.incrementAndGet() + "\"}}")
                        .onErrorResume(e -> Mono.empty()), 1)
                .subscribe();
        running.add(churn);
        return churn;
    }

    /**
     * Changes every ConfigMap once more, to a value no earlier write used: a patch that leaves an object as it
     * was makes no new version, hence no event and no reconcile. The ConfigMaps outlive a test, and the churn
     * (which drops ticks while a patch is in flight) may not reach every one of them before this is called.
     */
    private void touchAll() {
        String value = "final-" + touches.incrementAndGet();
        Flux.range(0, MAPS).flatMap(i -> maps.patch("map-" + i, PatchType.MERGE, "{\"data\":{\"n\":\"" + value + "\"}}"))
                .then().block(DEADLINE);
    }

    private String holder(String lease) {
        return leases(namespace.admin).get(lease).map(l -> l.getSpec().getHolderIdentity() == null ? ""
                : l.getSpec().getHolderIdentity()).onErrorReturn("").block(DEADLINE);
    }

    /**
     * Until {@code condition} holds, checked every 250 ms on boundedElastic (it may call the API server, which
     * it must not flood: the replicas' Lease writes share it).
     */
    private static void await(java.util.function.BooleanSupplier condition, Duration within) {
        Mono.fromCallable(condition::getAsBoolean)
                .subscribeOn(Schedulers.boundedElastic())
                .filter(holds -> holds)
                .repeatWhenEmpty(Integer.MAX_VALUE, tries -> tries.concatMap(i -> Mono.delay(Duration.ofMillis(250))))
                .timeout(within)
                .block();
    }

    /** Waits {@code duration} while the replicas run (a bounded wait on the clock, not a sleep of the code under test). */
    private static void during(Duration duration) {
        long until = millis() + duration.toMillis();
        Convergence.until(() -> millis() >= until, duration.plusSeconds(5), Schedulers.parallel()).block();
    }

    /**
     * The ConfigMaps whose current version no reconcile of one of {@code replicas} starting at or after
     * {@code since} read, each with its last reconcile (empty when every one was).
     */
    private List<String> keysNotReconciledSince(long since, List<Integer> replicas) {
        Map<String, Long> current = maps.list(io.reactiveinformer.api.ListOptions.none()).block(DEADLINE).items()
                .stream().collect(Collectors.toMap(m -> namespace.name + "/" + m.getMetadata().getName(),
                        m -> Long.parseLong(m.getMetadata().getResourceVersion())));
        List<Reconcile> all = List.copyOf(reconciles);
        return current.entrySet().stream()
                .filter(e -> all.stream().noneMatch(r -> r.key().equals(e.getKey()) && r.start() >= since
                        && replicas.contains(r.replica()) && r.resourceVersion() >= e.getValue()))
                .map(e -> e.getKey() + "@" + e.getValue() + " (last reconcile: " + all.stream()
                        .filter(r -> r.key().equals(e.getKey())).reduce((a, b) -> b).map(Reconcile::toString)
                        .orElse("none") + ")")
                .toList();
    }

    /** Until every ConfigMap's current version is reconciled (see above); on a timeout, says which are not. */
    private void awaitEveryKeyReconciledSince(long since, List<Integer> replicas, Duration within) {
        try {
            await(() -> keysNotReconciledSince(since, replicas).isEmpty(), within);
        } catch (RuntimeException timeout) {
            throw new AssertionError("not reconciled by replicas " + replicas + " within " + within + " since "
                    + since + " (now " + millis() + "): " + keysNotReconciledSince(since, replicas), timeout);
        }
    }

    /** Each key's replica of its last reconcile that started before {@code time}. */
    private Map<String, Integer> lastReconcilerBefore(long time) {
        Map<String, Reconcile> last = new HashMap<>();
        for (Reconcile r : List.copyOf(reconciles)) {
            if (r.start() < time) {
                last.merge(r.key(), r, (a, b) -> a.start() >= b.start() ? a : b);
            }
        }
        return last.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().replica()));
    }

    private void assertNoOverlap(boolean sameKeyOnly) {
        List<Reconcile> all = List.copyOf(reconciles);
        int checked = 0;
        for (Reconcile a : all) {
            for (Reconcile b : all) {
                if (a.replica() < b.replica() && (!sameKeyOnly || a.key().equals(b.key()))) {
                    checked++;
                    assertThat(a.end() <= b.start() || b.end() <= a.start()).as("%s overlaps %s", a, b).isTrue();
                }
            }
        }
        System.out.println((sameKeyOnly ? "same-key" : "cross-replica") + " overlap check: " + all.size()
                + " reconciles, " + checked + " pairs of different replicas, no overlap");
    }

    @Test
    void leaderElectedReplicasNeverReconcileAtTheSameTime() {
        String lease = "configmap-controller";
        replica(0, (b, c) -> b.leaderElection(LeaderElector.builder(leases(c), lease, "replica-0").timings(FAST).build()));
        await(() -> "replica-0".equals(holder(lease)), Duration.ofSeconds(30));
        List<Disposable> handles = new ArrayList<>(List.of(Disposables.disposed()));
        for (int i = 1; i < 3; i++) {
            String identity = "replica-" + i;
            handles.add(replica(i, (b, c) -> b.leaderElection(LeaderElector.builder(leases(c), lease, identity)
                    .timings(FAST).build())));
        }
        Disposable churn = churn();
        during(Duration.ofSeconds(4));

        long revoked = millis();
        namespace.revokeLeases(); // replica 0 keeps running but can no longer renew
        await(() -> holder(lease).matches("replica-[12]"), Duration.ofSeconds(40));
        long failover = millis() - revoked;
        during(Duration.ofSeconds(3));

        String second = holder(lease);
        long stopped = millis();
        handles.get(Integer.parseInt(second.substring("replica-".length()))).dispose(); // releases
        await(() -> !holder(lease).equals(second) && !holder(lease).isEmpty(), Duration.ofSeconds(30));
        long handover = millis() - stopped;
        during(Duration.ofSeconds(3));

        String third = holder(lease);
        int last = Integer.parseInt(third.substring("replica-".length()));
        churn.dispose();
        long since = millis();
        touchAll();
        awaitEveryKeyReconciledSince(since, List.of(last), Duration.ofSeconds(20));
        System.out.println("controller failover after 403: " + failover + " ms, after stop with release: " + handover
                + " ms (observed by polling the Lease)");
        assertThat(reconciles.stream().map(Reconcile::replica).distinct()).hasSize(3);
        assertNoOverlap(false);
    }

    @Test
    void shardedReplicasNeverReconcileOneKeyAtTheSameTimeAndTakeOverACutReplicasKeys() {
        for (int i = 0; i < 3; i++) {
            String identity = "replica-" + i;
            replica(i, (b, c) -> b.sharding(ShardElector.builder(leases(c), "configmaps", identity).shards(6)
                    .timings(FAST).build()));
        }
        Disposable churn = churn();
        // six shards, three replicas: a fair share of two each, so each reconciles some keys
        await(() -> reconciles.stream().map(Reconcile::replica).distinct().count() == 3, Duration.ofSeconds(30));
        during(Duration.ofSeconds(4));

        churn.dispose();
        long revoked = millis();
        namespace.revokeLeases(); // replica 0 keeps running but can no longer renew its shards
        Set<String> keysOfCut = lastReconcilerBefore(revoked).entrySet().stream().filter(e -> e.getValue() == 0)
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        touchAll();
        awaitEveryKeyReconciledSince(revoked, List.of(1, 2), Duration.ofSeconds(30));
        long moved = millis() - revoked;
        // the takeover: a remaining replica acquired a shard of replica 0 and reconciled its first key. Not
        // the time until every key converged, which adds 30 patches, their reconciles and the polling LISTs,
        // all at the API server's pace on a loaded machine
        long takeover = reconciles.stream().filter(r -> r.replica() != 0 && r.start() >= revoked
                && keysOfCut.contains(r.key())).mapToLong(Reconcile::start).min().orElseThrow() - revoked;
        System.out.println("sharded: replica 0's keys (" + keysOfCut.size() + ") taken over " + takeover
                + " ms after it was cut off, every key's last version reconciled by the others after " + moved
                + " ms (lease 10 s, retry 1 s)");
        assertThat(keysOfCut).isNotEmpty();
        assertThat(takeover).isLessThanOrEqualTo(FAST.leaseDuration().plus(FAST.retryPeriod()).toMillis() + SLACK);
        long lastOfCut = reconciles.stream().filter(r -> r.replica() == 0).mapToLong(Reconcile::end).max().orElseThrow();
        assertThat(lastOfCut - revoked).isLessThanOrEqualTo(FAST.renewDeadline().toMillis() + SLACK);
        assertNoOverlap(true);
    }
}
