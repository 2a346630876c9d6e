package io.reactiveinformer.e2e.leader;

import static io.reactiveinformer.e2e.leader.LeaseNamespace.DEADLINE;
import static io.reactiveinformer.e2e.leader.LeaseNamespace.FAST;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.Finalizer;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Finalizer cleanups across a failover on the real kube-apiserver: two leader-elected replicas (lease 3 s,
 * renew deadline 2 s, retry 0.5 s) of a controller whose {@link Finalizer} cleans up an external side effect
 * (a per-object record in this JVM, standing for a file or a row elsewhere) in 300 ms. {@value #OBJECTS}
 * ConfigMaps are deleted; once a third of the cleanups are done the leader is stopped as a crash would stop
 * it (its controller and informers disposed, its Lease not released), and the standby takes over when the
 * Lease expires and finishes.
 *
 * <p>What is promised, and asserted: every object's cleanup ran to completion at least once before its
 * finalizer was removed, and the finalizer was removed exactly once (seen by an independent watch). A
 * cleanup is <em>at least once</em>, not exactly once: one in flight when the leader died, or one that
 * completed while the removal that follows it did not reach the server, runs again at the successor, which
 * finds the finalizer still there. How many ran more than once is reported, not asserted. Each object also
 * carries a finalizer of this test's, so that removing the controller's is an update the watch sees (removing
 * the last finalizer would delete the object at once).
 */
@KubeApiServerTest
class FinalizerFailoverE2eTest {

    private static final int OBJECTS = 24;
    private static final String FINALIZER = "e2e.reactiveinformer.io/cleanup";
    private static final String HOLD = "e2e.reactiveinformer.io/hold";
    private static final String LEASE = "finalizer-failover";
    private static final Duration CLEANUP = Duration.ofMillis(300);

    private final LeaseNamespace namespace;
    private final ResourceClient<V1ConfigMap> maps;
    private final Disposable.Composite running = Disposables.composite();
    /** Per object: each cleanup that started, by replica. */
    private final Map<String, List<Integer>> cleanupsStarted = new ConcurrentHashMap<>();
    /** Per object: each cleanup that completed (its side effect done), by replica. */
    private final Map<String, List<Integer>> cleanupsCompleted = new ConcurrentHashMap<>();
    /** Per object: the completed cleanups when the watch saw the finalizer removed, once per removal. */
    private final Map<String, List<Integer>> removals = new ConcurrentHashMap<>();

    FinalizerFailoverE2eTest(KubeApiServer env) {
        namespace = new LeaseNamespace(env, "finalizer-failover");
        maps = namespace.admin.resource(V1ConfigMap.class).inNamespace(namespace.name);
    }

    @AfterEach
    void stop() {
        running.dispose();
        // let the objects go: only this test's finalizer may be left
        maps.list(ListOptions.none()).flatMapMany(list -> Flux.fromIterable(list.items()))
                .flatMap(m -> maps.patch(m.getMetadata().getName(), PatchType.MERGE, "{\"metadata\":{\"finalizers\":null}}")
                        .onErrorResume(e -> Mono.empty()))
                .then().block(DEADLINE);
        namespace.close();
    }

    /** One replica: its own informers and controller, campaigning for {@value #LEASE}; returns its handle. */
    private Disposable replica(int replica) {
        SharedInformerFactory factory = SharedInformerFactory.builder(namespace.admin).build();
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(namespace.name));
        Finalizer<V1ConfigMap> finalizer = Finalizer.builder(FINALIZER, informer,
                        namespace.admin.resource(V1ConfigMap.class))
                .reconcile(map -> Mono.just(Result.done()))
                .cleanup(map -> {
                    String name = map.getMetadata().getName();
                    return Mono.fromRunnable(() -> record(cleanupsStarted, name, replica))
                            .then(Mono.delay(CLEANUP))
                            .doOnNext(done -> record(cleanupsCompleted, name, replica))
                            .then();
                })
                .build();
        LeaderElector elector = LeaderElector.builder(namespace.admin.resource(V1Lease.class).inNamespace(namespace.name),
                LEASE, "replica-" + replica).timings(FAST).releaseOnCancel(false).build();
        Disposable controller = Controller.builder(informer).name("replica-" + replica)
                .leaderElection(elector).reconciler(finalizer).build().start();
        factory.start();
        Disposable handle = Disposables.composite(controller, () -> factory.shutdown().subscribe());
        running.add(handle);
        return handle;
    }

    private static void record(Map<String, List<Integer>> log, String name, int replica) {
        log.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(replica);
    }

    private static int count(Map<String, List<Integer>> log, String name) {
        List<Integer> entries = log.get(name);
        return entries == null ? 0 : entries.size();
    }

    /**
     * Watches the ConfigMaps from {@code resourceVersion} on, recording each update that removes the
     * controller's finalizer, with the cleanups completed by then: the removal's write happened before the
     * watch delivered it, so a cleanup that preceded the write has been recorded.
     */
    private void watchRemovals(String resourceVersion, Map<String, List<String>> finalizers) {
        running.add(maps.watch(WatchOptions.from(resourceVersion))
                .filter(e -> e.type() == WatchEvent.Type.MODIFIED || e.type() == WatchEvent.Type.DELETED)
                .subscribe(e -> {
                    String name = e.object().getMetadata().getName();
                    List<String> now = e.object().getMetadata().getFinalizers() == null ? List.of()
                            : e.object().getMetadata().getFinalizers();
                    List<String> before = finalizers.put(name, now);
                    if (before != null && before.contains(FINALIZER) && !now.contains(FINALIZER)) {
                        record(removals, name, count(cleanupsCompleted, name));
                    }
                }));
    }

    private String holder() {
        return namespace.admin.resource(V1Lease.class).inNamespace(namespace.name).get(LEASE)
                .map(l -> l.getSpec().getHolderIdentity() == null ? "" : l.getSpec().getHolderIdentity())
                .onErrorReturn("").block(DEADLINE);
    }

    /** Until {@code condition} holds, checked every 100 ms on boundedElastic (it may call the API server). */
    private static void await(BooleanSupplier condition, Duration within, String what) {
        Mono.fromCallable(condition::getAsBoolean)
                .subscribeOn(Schedulers.boundedElastic())
                .filter(holds -> holds)
                .repeatWhenEmpty(Integer.MAX_VALUE, tries -> tries.concatMap(i -> Mono.delay(Duration.ofMillis(100))))
                .timeout(within, Mono.error(() -> new AssertionError("not within " + within + ": " + what)))
                .block();
    }

    @Test
    void everyCleanupRunsBeforeItsFinalizerIsRemovedOnceAcrossAFailover() {
        Flux.range(0, OBJECTS).flatMap(i -> maps.create(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                        .metadata(new V1ObjectMeta().name("obj-" + i).finalizers(List.of(HOLD)))))
                .then().block(DEADLINE);
        Disposable leader = replica(0);
        await(() -> "replica-0".equals(holder()), DEADLINE, "replica-0 leads");
        replica(1);
        await(() -> maps.list(ListOptions.none()).block(DEADLINE).items().stream()
                .filter(m -> m.getMetadata().getName().startsWith("obj-"))
                .filter(m -> m.getMetadata().getFinalizers().contains(FINALIZER)).count() == OBJECTS,
                DEADLINE, "every finalizer added");

        Map<String, List<String>> finalizers = new ConcurrentHashMap<>();
        ObjectList<V1ConfigMap> list = maps.list(ListOptions.none()).block(DEADLINE);
        list.items().forEach(m -> finalizers.put(m.getMetadata().getName(), m.getMetadata().getFinalizers()));
        watchRemovals(list.resourceVersion(), finalizers);
        Flux.range(0, OBJECTS).flatMap(i -> maps.delete("obj-" + i)).then().block(DEADLINE);

        await(() -> cleanupsCompleted.size() >= OBJECTS / 3, DEADLINE, "a third of the cleanups");
        leader.dispose(); // a crash: reconciles stop where they are, the Lease is left to expire
        Set<String> inFlight = cleanupsStarted.keySet().stream()
                .filter(name -> count(cleanupsStarted, name) > count(cleanupsCompleted, name))
                .collect(Collectors.toCollection(java.util.TreeSet::new));
        int doneByLeader = cleanupsCompleted.size();

        await(() -> removals.keySet().stream().filter(n -> n.startsWith("obj-")).count() == OBJECTS, DEADLINE, "every finalizer removed; removed: " + removals.keySet());

        List<String> names = finalizers.keySet().stream().filter(n -> n.startsWith("obj-")).toList();
        assertThat(names).hasSize(OBJECTS);
        Map<String, Integer> repeated = new TreeMap<>();
        for (String name : names) {
            assertThat(count(cleanupsCompleted, name)).as("cleanups of %s completed", name).isGreaterThanOrEqualTo(1);
            assertThat(removals.get(name)).as("%s: the finalizer's removals, each with the cleanups completed by then",
                    name).singleElement().satisfies(done -> assertThat(done).isGreaterThanOrEqualTo(1));
            if (count(cleanupsStarted, name) > 1) {
                repeated.put(name, count(cleanupsStarted, name));
            }
        }
        assertThat(cleanupsCompleted.values().stream().flatMap(List::stream)).as("the successor finished")
                .contains(1);
        assertThat(holder()).isEqualTo("replica-1");
        System.out.printf("finalizer failover: %d objects, %d cleanups completed by the leader before it stopped, "
                        + "in flight then: %s; cleanups started more than once: %d %s; cleanups started %d, completed %d%n",
                OBJECTS, doneByLeader, inFlight, repeated.size(), repeated,
                cleanupsStarted.values().stream().mapToInt(List::size).sum(),
                cleanupsCompleted.values().stream().mapToInt(List::size).sum());
    }
}
