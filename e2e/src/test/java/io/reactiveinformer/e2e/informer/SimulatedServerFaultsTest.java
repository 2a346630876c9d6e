package io.reactiveinformer.e2e.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.test.Churn;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.Fault;
import io.reactiveinformer.test.server.FaultPlan;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The shared informer over real HTTP against the simulated API server, with every fault the server can
 * inject while {@link Churn} changes the objects: the cache converges to a fresh LIST, and no subscriber
 * (one coalescing, one unbounded) misses a final state or a deletion.
 */
class SimulatedServerFaultsTest {

    private static final String NS = "churn";
    private static final ResourceType<V1ConfigMap> CONFIG_MAPS = ResourceType.of(V1ConfigMap.class);
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** The informer's lists: the test's own consistent LISTs (for convergence) carry neither a version nor a limit. */
    private static final Predicate<RequestInfo> LISTS = RequestInfo.reads()
            .and(r -> r.query().containsKey("resourceVersion") || r.query().containsKey("limit"));
    private static final Predicate<RequestInfo> WATCHES = RequestInfo.watches();
    /**
     * Short backoffs so that a test runs in seconds; watches of 2 to 4 s so that normal closes happen too;
     * an idle timeout well above the server's bookmark interval, so only a silent watch trips it. LIST, not
     * streaming lists: the plans inject faults into LISTs.
     */
    static final ReflectorOptions FAST = ReflectorOptions.defaults().withStreamingList(false)
            .withMinWatchTimeout(Duration.ofSeconds(2))
            .withIdleTimeout(Duration.ofSeconds(1))
            .withBackoff(new Backoff(Duration.ofMillis(20), 2.0, 1.0, Duration.ofMillis(200), Duration.ofSeconds(5)));

    private ClusterState state;
    private SimulatedApiServer server;
    private KubernetesClient client;
    private ResourceClient<V1ConfigMap> maps;
    private SharedInformerFactory factory;
    private final Disposable.Composite subscriptions = Disposables.composite();

    @BeforeEach
    void startServer() {
        state = ClusterState.builder().bookmarkInterval(Duration.ofMillis(200)).seed(7).build();
        server = SimulatedApiServer.start(state);
        client = server.newClient();
        maps = client.resource(V1ConfigMap.class).inNamespace(NS);
        // Above the 403 streaks below: those must delay the sync, not fail it.
        factory = SharedInformerFactory.builder(client).reflectorOptions(FAST).syncFailureThreshold(10).build();
    }

    @AfterEach
    void stop() {
        subscriptions.dispose();
        factory.shutdown().block(DEADLINE);
        client.close();
        server.close();
    }

    static Stream<Arguments> faults() {
        return Stream.of(
                scenario("connection cut between events", 1, 4,
                        plan -> plan.times(3, WATCHES, Fault.closeAfterEvents(5))),
                scenario("connection cut mid-object", 2, 4,
                        plan -> plan.once(LISTS, Fault.closeAfterBytes(300))
                                .times(3, WATCHES, Fault.closeAfterBytes(700))),
                scenario("429 with Retry-After", 3, 4,
                        plan -> plan.times(2, LISTS, Fault.tooManyRequests(Duration.ofSeconds(1)))
                                .times(3, WATCHES, Fault.tooManyRequests(Duration.ofSeconds(1)))),
                scenario("500", 3, 4,
                        plan -> plan.times(2, LISTS, Fault.internalError())
                                .times(3, WATCHES, Fault.internalError())),
                scenario("403 for a while", 9, 5,
                        plan -> plan.times(4, LISTS, Fault.forbidden()).times(4, WATCHES, Fault.forbidden())),
                scenario("410 on watch", 4, 4,
                        plan -> plan.times(3, WATCHES, Fault.expiredWatch())),
                scenario("garbage bytes", 3, 3,
                        plan -> plan.times(2, WATCHES, Fault.garbage(3, 32, 11))),
                scenario("unknown event type", 3, 3,
                        plan -> plan.times(2, WATCHES, Fault.unknownEventType(3))),
                scenario("object without metadata", 3, 3,
                        plan -> plan.times(2, WATCHES, Fault.objectWithoutMetadata(3))),
                scenario("silent watch until the idle timeout", 1, 2,
                        plan -> plan.once(WATCHES, Fault.silentWatch())),
                scenario("random mix of every fault", 1, 1,
                        plan -> plan.random(3, 0.5, LISTS.or(WATCHES), List.of(
                                Fault.closeAfterEvents(4), Fault.closeAfterBytes(500),
                                Fault.tooManyRequests(Duration.ofSeconds(1)), Fault.internalError(), Fault.forbidden(),
                                Fault.expiredWatch(), Fault.garbage(2, 16, 5), Fault.unknownEventType(2),
                                Fault.objectWithoutMetadata(2), Fault.silentWatch(), Fault.delay(Duration.ofMillis(300))))));
    }

    /** A fault plan, and the fewest lists and watches the informer makes to get past it. */
    private static Arguments scenario(String name, int minLists, int minWatches, Consumer<FaultPlan> inject) {
        return Arguments.of(name, minLists, minWatches, inject);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("faults")
    void convergesUnderChurnAndNoSubscriberMissesAFinalState(String name, int minLists, int minWatches,
                                                             Consumer<FaultPlan> inject) {
        Churn churn = new Churn(state, CONFIG_MAPS, NS, name.hashCode());
        churn.run(30);
        inject.accept(server.faults());
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(NS));
        NotificationLog<V1ConfigMap> coalescing = subscribe(informer, SubscriberOptions.defaults().withName("coalescing"));
        NotificationLog<V1ConfigMap> unbounded = subscribe(informer, SubscriberOptions.defaults().unbounded().withName("unbounded"));
        factory.start();

        StepVerifier.create(churn.every(Duration.ofMillis(5), 300).then()).expectComplete().verify(DEADLINE);
        // The informer must get through the whole plan: on a slow machine the churn can end before it
        // has, and clearing the plan then would leave faults untried.
        StepVerifier.create(Convergence.until(() -> count(LISTS) >= minLists && count(WATCHES) >= minWatches,
                        DEADLINE, Schedulers.parallel()))
                .expectComplete()
                .verify(DEADLINE.plusSeconds(5));
        server.faults().clear();

        assertConverged(informer, coalescing, unbounded);
    }

    /**
     * With the default streaming lists, a server that refuses them (422, as kube-apiserver with the WatchList
     * feature off) is listed instead, once refused: the informer syncs and keeps watching without streaming.
     */
    @Test
    void aServerThatRefusesStreamingListsIsListedInstead() {
        new Churn(state, CONFIG_MAPS, NS, 3).run(30);
        Predicate<RequestInfo> streamingLists = r -> "true".equals(r.query().get("sendInitialEvents"));
        server.faults().always(streamingLists, Fault.status(422, "Invalid",
                "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"));
        SharedInformerFactory streaming = SharedInformerFactory.builder(client)
                .reflectorOptions(FAST.withStreamingList(true)).build();
        SharedIndexInformer<V1ConfigMap> informer = streaming.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(NS));
        NotificationLog<V1ConfigMap> coalescing = subscribe(informer, SubscriberOptions.defaults().withName("coalescing"));
        NotificationLog<V1ConfigMap> unbounded = subscribe(informer, SubscriberOptions.defaults().unbounded().withName("unbounded"));
        streaming.start();
        try {
            StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);
            assertThat(count(streamingLists)).as("refused once, then never asked again").isEqualTo(1);
            assertThat(count(LISTS)).isEqualTo(1);
            assertConverged(informer, coalescing, unbounded);
        } finally {
            streaming.shutdown().block(DEADLINE);
        }
    }

    /**
     * The watch is cut and every reconnection refused while objects are deleted and the history is
     * compacted: the re-watch gets a 410, the relist finds the deletions, and every subscriber is told of
     * each with the last state it knew.
     */
    @Test
    void historyCompactedDuringADisconnectRelistsAndDeliversTheMissedDeletions() {
        Churn churn = new Churn(state, CONFIG_MAPS, NS, 5);
        churn.run(20);
        for (int i = 0; i < 10; i++) {
            state.create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace(NS).name("fixed-" + i))
                    .data(Map.of("v", "0")));
        }
        server.faults().once(WATCHES, Fault.closeAfterEvents(3)).always(WATCHES, Fault.internalError());
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(NS));
        NotificationLog<V1ConfigMap> coalescing = subscribe(informer, SubscriberOptions.defaults().withName("coalescing"));
        NotificationLog<V1ConfigMap> unbounded = subscribe(informer, SubscriberOptions.defaults().unbounded().withName("unbounded"));
        factory.start();
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);

        churn.run(10);
        StepVerifier.create(Convergence.until(() -> count(WATCHES) >= 3, DEADLINE, Schedulers.parallel()))
                .expectComplete().verify(DEADLINE.plusSeconds(5));
        // Disconnected: the first watch was cut after 3 events, every later one is refused.
        for (int i = 0; i < 5; i++) {
            state.delete(CONFIG_MAPS, NS, "fixed-" + i);
        }
        churn.run(40);
        state.compact();
        churn.run(10);
        int listsBefore = count(LISTS);
        server.faults().clear();

        assertConverged(informer, coalescing, unbounded);
        assertThat(count(LISTS)).as("a relist after the 410").isGreaterThan(listsBefore);
        for (NotificationLog<V1ConfigMap> log : List.of(coalescing, unbounded)) {
            for (int i = 0; i < 5; i++) {
                Notification.Deleted<V1ConfigMap> deleted = log.deletion(NS + "/fixed-" + i);
                assertThat(deleted).as("deletion of fixed-%d", i).isNotNull();
                assertThat(deleted.finalStateUnknown()).as("inferred from the relist").isTrue();
                assertThat(deleted.lastState().getData()).containsEntry("v", "0");
            }
        }
    }

    /**
     * A relist after a 410 with the store full (the watch refused while objects change, then the history
     * compacted): the cache equals the server's objects, and each object the server did not change meanwhile is
     * still the very instance cached before, not a second copy.
     */
    @Test
    void aRelistAfterA410WithTheStoreFullMatchesTheServerAndKeepsTheUnchangedInstances() {
        for (int i = 0; i < 100; i++) {
            state.create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace(NS).name("cm-" + i))
                    .data(Map.of("v", "0")));
        }
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(NS));
        factory.start();
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);
        int watchesBefore = count(WATCHES);
        server.faults().always(WATCHES, Fault.internalError());
        // a refused re-watch: the watch that saw the list has ended, so what follows goes unseen
        StepVerifier.create(Convergence.until(() -> count(WATCHES) > watchesBefore, DEADLINE, Schedulers.parallel()))
                .expectComplete().verify(DEADLINE.plusSeconds(5));
        Map<String, V1ConfigMap> before = new HashMap<>();
        informer.indexer().list().forEach(cm -> before.put(cm.getMetadata().getName(), cm));
        assertThat(before).hasSize(100);
        for (int i = 0; i < 10; i++) {
            state.update(new V1ConfigMap().metadata(new V1ObjectMeta().namespace(NS).name("cm-" + i))
                    .data(Map.of("v", "1")));
            state.delete(state.find(CONFIG_MAPS, NS, "cm-" + (10 + i)).orElseThrow());
            state.create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace(NS).name("new-" + i))
                    .data(Map.of("v", "0")));
        }
        state.compact();
        int listsBefore = count(LISTS);
        server.faults().clear();

        StepVerifier.create(Convergence.cacheMatchesList(informer.indexer()::list, ListerWatcher.of(maps), DEADLINE,
                        Schedulers.parallel()))
                .expectComplete().verify(DEADLINE.plusSeconds(5));
        assertThat(count(LISTS)).as("a relist after the 410").isGreaterThan(listsBefore);
        Map<String, V1ConfigMap> after = new HashMap<>();
        informer.indexer().list().forEach(cm -> after.put(cm.getMetadata().getName(), cm));
        assertThat(after).hasSize(100).doesNotContainKeys("cm-10", "cm-19");
        for (int i = 0; i < 10; i++) {
            assertThat(after.get("cm-" + i)).as("changed cm-%d", i).isNotSameAs(before.get("cm-" + i));
            assertThat(after.get("cm-" + i).getData()).containsEntry("v", "1");
        }
        for (int i = 20; i < 100; i++) {
            assertThat(after.get("cm-" + i)).as("unchanged cm-%d", i).isSameAs(before.get("cm-" + i));
        }
    }

    private NotificationLog<V1ConfigMap> subscribe(SharedIndexInformer<V1ConfigMap> informer, SubscriberOptions options) {
        NotificationLog<V1ConfigMap> log = new NotificationLog<>();
        subscriptions.add(informer.notifications(options).subscribe(log));
        return log;
    }

    private void assertConverged(SharedIndexInformer<V1ConfigMap> informer, NotificationLog<V1ConfigMap> coalescing,
                                 NotificationLog<V1ConfigMap> unbounded) {
        StepVerifier.create(Convergence.cacheMatchesList(informer.indexer()::list, ListerWatcher.of(maps), DEADLINE, Schedulers.parallel())
                        .then(Convergence.cacheMatchesList(coalescing::view, ListerWatcher.of(maps), DEADLINE, Schedulers.parallel()))
                        .then(Convergence.cacheMatchesList(unbounded::view, ListerWatcher.of(maps), DEADLINE, Schedulers.parallel())))
                .expectComplete()
                .verify(DEADLINE.multipliedBy(3).plusSeconds(5));
        List<String> listed = List.copyOf(Convergence.versions(maps.list(ListOptions.none()).block(DEADLINE).items()).keySet());
        assertThat(coalescing.missedDeletions(listed)).isEmpty();
        assertThat(unbounded.missedDeletions(listed)).isEmpty();
        assertThat(unbounded.shownKeys()).as("the unbounded subscriber saw every key").containsAll(listed);
    }

    private int count(Predicate<RequestInfo> which) {
        return (int) server.requests().stream()
                .filter(r -> r.path().endsWith("/configmaps"))
                .filter(which)
                .count();
    }
}
