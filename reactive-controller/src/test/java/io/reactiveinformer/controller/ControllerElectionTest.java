package io.reactiveinformer.controller;

import static io.reactiveinformer.controller.TestObjects.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.leaderelection.InMemoryLeases;
import io.reactiveinformer.leaderelection.ShardElector;
import io.reactiveinformer.leaderelection.TestElectors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Controllers as replicas in virtual time, each with its own informer on one in-memory API server and an
 * election on in-memory Leases (lease 15 s, renew deadline 10 s, retry 2 s); every reconcile takes 1 s and
 * is recorded with its replica and its start and end.
 */
class ControllerElectionTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakeApiServer<V1ReplicaSet> server = new FakeApiServer<>(m -> new V1ReplicaSet().metadata(m));
    private final InMemoryLeases leases = new InMemoryLeases();
    private final List<Reconcile> reconciles = new CopyOnWriteArrayList<>();
    private final List<Disposable> toStop = new ArrayList<>();

    record Reconcile(String replica, String key, long start, long end) {
    }

    private final class Replica {
        final String name;
        final InMemoryLeases.Client connection = leases.client();
        final SharedIndexInformer<V1ReplicaSet> informer;
        Controller.Builder<V1ReplicaSet> builder;
        Disposable running;

        Replica(String name) {
            this.name = name;
            this.informer = SharedIndexInformer.builder(V1ReplicaSet.class, server).name("rs-" + name).scheduler(time)
                    .build();
            this.builder = Controller.builder(informer).name(name).scheduler(time).maxConcurrentReconciles(4)
                    .reconciler(request -> {
                        long start = now();
                        return Mono.delay(Duration.ofSeconds(1), time)
                                .doFinally(signal -> reconciles.add(new Reconcile(name, request.key(), start, now())))
                                .thenReturn(Result.done());
                    });
        }

        Replica start() {
            running = builder.build().start();
            toStop.add(running);
            toStop.add(informer.start());
            return this;
        }
    }

    @AfterEach
    void stop() {
        toStop.forEach(Disposable::dispose);
        time.dispose();
    }

    private long now() {
        return time.now(TimeUnit.MILLISECONDS);
    }

    private Set<String> keysReconciledBy(String replica, long since) {
        return reconciles.stream().filter(r -> r.replica().equals(replica) && r.start() >= since)
                .map(Reconcile::key).collect(Collectors.toSet());
    }

    /** No two reconciles overlap in time when {@code sameKeyOnly} is false, or of one key when it is true. */
    private void assertNoOverlapAcrossReplicas(boolean sameKeyOnly) {
        for (Reconcile a : reconciles) {
            for (Reconcile b : reconciles) {
                if (!a.replica().equals(b.replica()) && (!sameKeyOnly || a.key().equals(b.key()))) {
                    assertThat(a.end() <= b.start() || b.end() <= a.start())
                            .as("%s overlaps %s", a, b).isTrue();
                }
            }
        }
    }

    @Test
    void onlyTheLeaderReconcilesAndItsSuccessorStartsOnlyAfterItStopped() {
        for (int i = 0; i < 20; i++) {
            server.put(replicaSet("ns", "rs-" + i, 1));
        }
        Replica a = new Replica("a");
        a.builder.leaderElection(TestElectors.leader(a.connection, "rs-controller", "a", time));
        a.start();
        Replica b = new Replica("b");
        b.builder.leaderElection(TestElectors.leader(b.connection, "rs-controller", "b", time));
        b.start();
        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(keysReconciledBy("a", 0)).hasSize(20);
        assertThat(keysReconciledBy("b", 0)).isEmpty();

        // changes keep coming while a is cut off from the Leases; its renewals fail
        a.connection.down = true;
        long cut = now();
        for (int step = 0; step < 300; step++) {
            server.put(replicaSet("ns", "rs-" + step % 20, step + 2));
            time.advanceTimeBy(Duration.ofMillis(100));
        }
        long bFirst = reconciles.stream().filter(r -> r.replica().equals("b")).mapToLong(Reconcile::start).min()
                .orElseThrow();
        long aLast = reconciles.stream().filter(r -> r.replica().equals("a")).mapToLong(Reconcile::end).max()
                .orElseThrow();
        assertThat(aLast).isLessThanOrEqualTo(cut + 10_000); // a stopped at its renew deadline
        assertThat(bFirst).isGreaterThanOrEqualTo(cut + 13_000); // b waited a lease duration after a's last renewal
        assertThat(keysReconciledBy("b", bFirst)).hasSize(20); // b began with every cached object
        assertNoOverlapAcrossReplicas(false);
    }

    @Test
    void shardedReplicasSplitTheKeysAndNeverReconcileOneKeyAtOnce() {
        List<Replica> replicas = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            Replica replica = new Replica(name);
            replica.builder.sharding(TestElectors.shards(replica.connection, "rs", name, 8, time));
            replicas.add(replica.start());
        }
        for (int step = 0; step < 600; step++) {
            server.put(replicaSet("ns", "rs-" + step % 40, step + 1));
            time.advanceTimeBy(Duration.ofMillis(100));
            if (step == 200) {
                replicas.get(2).connection.down = true; // c is cut off: its shards move after its lease runs out
            }
        }
        Set<String> a = keysReconciledBy("a", 0);
        Set<String> b = keysReconciledBy("b", 0);
        assertThat(a).isNotEmpty();
        assertThat(b).isNotEmpty();
        assertThat(keysReconciledBy("c", 0)).isNotEmpty();
        // after c's shards moved (well before the end), a and b together reconcile every key
        Set<String> late = new java.util.HashSet<>(keysReconciledBy("a", now() - 10_000));
        late.addAll(keysReconciledBy("b", now() - 10_000));
        assertThat(late).hasSize(40);
        assertThat(keysReconciledBy("c", now() - 10_000)).isEmpty();
        for (Reconcile r : reconciles) {
            assertThat(r.replica()).isIn("a", "b", "c");
        }
        assertThat(ShardElector.shardOf("ns/rs-0", 8)).isBetween(0, 7);
        assertNoOverlapAcrossReplicas(true);
    }
    @Test
    void replicasCacheOnlyTheShardsTheyHoldAndReconcileAShardOnlyOnceItsObjectsAreCached() {
        List<Replica> replicas = new ArrayList<>();
        List<String> cacheMisses = new CopyOnWriteArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            Replica replica = new Replica(name);
            replica.builder.sharding(TestElectors.shards(replica.connection, "rs", name, 8, time), ShardSelector.Key.UID)
                    .reconciler(request -> {
                        long start = now();
                        if (replica.informer.indexer().getByKey(request.key()).isEmpty()) {
                            cacheMisses.add(name + " " + request.key());
                        }
                        return Mono.delay(Duration.ofSeconds(1), time)
                                .doFinally(signal -> reconciles.add(new Reconcile(name, request.key(), start, now())))
                                .thenReturn(Result.done());
                    });
            replicas.add(replica.start());
        }
        for (int i = 0; i < 40; i++) {
            server.put(replicaSet("ns", "rs-" + i, 1));
        }
        time.advanceTimeBy(Duration.ofSeconds(30));

        // each caches its own shards' objects, and together they cache each object exactly once
        List<String> cached = new ArrayList<>();
        for (Replica replica : replicas) {
            assertThat(replica.informer.indexer().size()).as("%s caches a share", replica.name).isBetween(1, 39);
            ShardSelector held = replica.informer.shardSelector();
            replica.informer.indexer().list().forEach(rs -> assertThat(held.matches(rs)).isTrue());
            cached.addAll(replica.informer.indexer().listKeys());
        }
        assertThat(cached).hasSize(40).doesNotHaveDuplicates();
        for (Replica replica : replicas) {
            // and it reconciled them (others too, while it held more shards before the others joined)
            assertThat(keysReconciledBy(replica.name, 0)).containsAll(replica.informer.indexer().listKeys());
        }

        // c is cut off: its terms end at its renew deadline and its cache empties; a and b take its shards over
        // and reconcile each of its keys, each with its object in their cache
        List<String> ofC = replicas.get(2).informer.indexer().listKeys();
        replicas.get(2).connection.down = true;
        long cut = now();
        time.advanceTimeBy(Duration.ofSeconds(40));
        assertThat(replicas.get(2).informer.indexer().size()).isZero();
        assertThat(replicas.get(2).informer.shardSelector().isNone()).isTrue();
        assertThat(replicas.get(0).informer.indexer().size() + replicas.get(1).informer.indexer().size()).isEqualTo(40);
        Set<String> late = new java.util.HashSet<>(keysReconciledBy("a", cut));
        late.addAll(keysReconciledBy("b", cut));
        assertThat(late).containsAll(ofC);
        assertThat(cacheMisses).as("reconciles of keys missing from the cache").isEmpty();
        assertNoOverlapAcrossReplicas(true);
    }
    @Test
    void anAcquiredShardIsNotReconciledBeforeItsObjectsAreCachedEvenWhenItsRequestsComeFirst() {
        // namespace shards: a request's shard is known from its key alone, so requests mapped from a secondary (pods
        // of the replica sets) arrive for the shard before the primary's relist brings its objects
        FakeApiServer<io.kubernetes.client.openapi.models.V1Pod> pods =
                new FakeApiServer<>(m -> new io.kubernetes.client.openapi.models.V1Pod().metadata(m));
        for (int i = 0; i < 10; i++) {
            server.put(replicaSet("ns-" + i, "rs", 1));
        }
        Replica a = new Replica("a");
        SharedIndexInformer<io.kubernetes.client.openapi.models.V1Pod> podInformer = SharedIndexInformer.builder(
                io.kubernetes.client.openapi.models.V1Pod.class, pods).name("pods").scheduler(time).build();
        toStop.add(podInformer.start());
        List<String> cacheMisses = new CopyOnWriteArrayList<>();
        a.builder.sharding(TestElectors.shards(a.connection, "rs", "a", 4, time), ShardSelector.Key.NAMESPACE)
                .watches(podInformer, KeyMapper.controllerOwner("apps/v1", "ReplicaSet"))
                .reconciler(request -> {
                    if (a.informer.indexer().getByKey(request.key()).isEmpty()) {
                        cacheMisses.add(request.key());
                    }
                    reconciles.add(new Reconcile("a", request.key(), now(), now()));
                    return Mono.just(Result.done());
                });
        // the primary informer is synced, holding no shard, when the controller starts; then its lists fail three
        // times (with backoff): these are the relist that follows the acquisition of the shards (mutation-checked:
        // with terms begun at acquisition, pods' requests were reconciled at once, their primaries not cached)
        server.failNextLists(3, KubernetesApiException.of("GET /apis/apps/v1/replicasets", 503, null, null));
        a.informer.selectShards(ShardSelector.none());
        toStop.add(a.informer.start());
        time.advanceTimeBy(Duration.ZERO);
        assertThat(a.informer.isSynced()).as("synced, with nothing").isTrue();
        a.start();
        long failing = now();
        for (int step = 0; step < 100; step++) {
            for (int i = 0; i < 10; i++) {
                pods.put(TestObjects.pod("ns-" + i, "pod", TestObjects.controlledBy("rs")));
            }
            time.advanceTimeBy(Duration.ofMillis(200));
        }

        assertThat(a.informer.indexer().size()).as("every shard held and cached in the end").isEqualTo(10);
        assertThat(reconciles).as("reconciled once the relist was applied").isNotEmpty();
        assertThat(reconciles.stream().mapToLong(Reconcile::start).min().orElseThrow())
                .as("no reconcile while the lists failed").isGreaterThan(failing + 2_000);
        assertThat(cacheMisses).as("reconciles of keys missing from the cache").isEmpty();
    }
}
