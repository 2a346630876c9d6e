package io.reactiveinformer.e2e.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.InformerSyncException;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.util.retry.Retry;

/**
 * The shared informer against a real kube-apiserver: bulk churn, RBAC denied then granted, a forced 410
 * with deletions made while disconnected, and an apiserver restart mid-watch. One namespace for the
 * class; each test labels its own objects and informs on that label. The tests that restart the
 * apiserver (compaction does too) run last.
 */
@KubeApiServerTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KubeApiServerInformerTest {

    private static final Duration DEADLINE = Duration.ofSeconds(120);
    /**
     * Short backoffs; watches of 30 to 60 s; an idle timeout above twice that, since this server sends
     * bookmarks only about every minute.
     */
    private static final ReflectorOptions OPTIONS = ReflectorOptions.defaults()
            .withMinWatchTimeout(Duration.ofSeconds(30))
            .withIdleTimeout(Duration.ofSeconds(130))
            .withBackoff(new Backoff(Duration.ofMillis(50), 2.0, 1.0, Duration.ofSeconds(1), Duration.ofSeconds(30)));

    private final KubeApiServer env;
    private KubernetesClient admin;
    private String namespace;
    private ResourceClient<V1ConfigMap> maps;
    private SharedInformerFactory factory;
    private Disposable.Composite subscriptions;

    KubeApiServerInformerTest(KubeApiServer env) {
        this.env = env;
    }

    @BeforeAll
    void createNamespace() {
        admin = client("admin");
        namespace = "informer-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        admin.resource(V1Namespace.class)
                .create(new V1Namespace().apiVersion("v1").kind("Namespace").metadata(new V1ObjectMeta().name(namespace)))
                .block(DEADLINE);
        maps = admin.resource(V1ConfigMap.class).inNamespace(namespace);
    }

    @BeforeEach
    void newSubscriptions() {
        subscriptions = Disposables.composite();
    }

    @AfterEach
    void stopInformers() {
        subscriptions.dispose();
        if (factory != null) {
            factory.shutdown().block(DEADLINE);
            factory = null;
        }
    }

    @AfterAll
    void closeClient() {
        admin.close();
    }

    @Test
    @Order(1)
    void fiveThousandConfigMapsThenUpdatesAndDeletesWhileTheInformerRuns() {
        String test = "bulk";
        StepVerifier.create(create(test, 0, 2500)).expectComplete().verify(DEADLINE);
        factory = SharedInformerFactory.builder(admin).reflectorOptions(OPTIONS).build();
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(spec(test));
        NotificationLog<V1ConfigMap> coalescing = subscribe(informer, SubscriberOptions.defaults().withName("coalescing"));
        NotificationLog<V1ConfigMap> unbounded = subscribe(informer, SubscriberOptions.defaults().unbounded().withName("unbounded"));
        factory.start();
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);
        assertThat(informer.indexer().list()).hasSize(2500);

        // Disjoint keys, so the changes may run concurrently: creates, updates (twice each), deletes.
        StepVerifier.create(Flux.merge(create(test, 2500, 5000),
                                update(test, 0, 1000, 1).then(update(test, 0, 1000, 2)),
                                delete(test, 1000, 2000)).then())
                .expectComplete()
                .verify(DEADLINE.multipliedBy(2));

        assertConverged(informer, test, coalescing, unbounded);
        assertThat(informer.indexer().list()).hasSize(4000);
        assertThat(unbounded.changes()).as("every create, update and delete, once")
                .isEqualTo(5000 + 2000 + 1000);
    }

    @Test
    @Order(2)
    void restrictedIdentityFailsToSyncWithTheTypedErrorThenSyncsOnceGrantedAccess() {
        String test = "rbac";
        StepVerifier.create(create(test, 0, 20)).expectComplete().verify(DEADLINE);
        try (KubernetesClient restricted = client("restricted")) {
            factory = SharedInformerFactory.builder(restricted).reflectorOptions(OPTIONS).syncFailureThreshold(2).build();
            SharedIndexInformer<V1ConfigMap> informer = factory.informer(spec(test));
            NotificationLog<V1ConfigMap> log = subscribe(informer, SubscriberOptions.defaults());
            factory.start();

            StepVerifier.create(informer.hasSynced())
                    .expectErrorSatisfies(e -> {
                        assertThat(e).isInstanceOf(InformerSyncException.class);
                        InformerSyncException failure = (InformerSyncException) e;
                        assertThat(failure.attempts()).isGreaterThanOrEqualTo(2);
                        assertThat(failure.getCause()).isInstanceOf(KubernetesApiException.Forbidden.class);
                    })
                    .verify(DEADLINE);
            assertThat(informer.isSynced()).isFalse();
            assertThat(log.count()).isZero();

            grantConfigMapReading("testenv-restricted");

            // hasSynced() reflects the state when subscribed: ask again until the informer has caught up.
            StepVerifier.create(Mono.defer(informer::hasSynced)
                            .retryWhen(Retry.fixedDelay(Long.MAX_VALUE, Duration.ofMillis(100))
                                    .filter(e -> e instanceof InformerSyncException)))
                    .expectComplete()
                    .verify(DEADLINE);
            StepVerifier.create(create(test, 20, 30).then(delete(test, 0, 5))).expectComplete().verify(DEADLINE);
            assertConverged(informer, test, log);
            assertThat(informer.indexer().list()).hasSize(25);
        }
    }

    /**
     * The informer is disconnected (its watch cut, new ones held back) while objects are deleted and
     * updated, then the history is compacted (which restarts the apiserver): the re-watch gets 410, the
     * relist finds the deletions, and each subscriber is told of them with the last state it knew.
     */
    @Test
    @Order(3)
    void compactionForcesA410AndTheRelistDeliversDeletionsMadeWhileDisconnected() {
        String test = "compact";
        StepVerifier.create(create(test, 0, 20)).expectComplete().verify(DEADLINE);
        GatedListerWatcher<V1ConfigMap> gated = new GatedListerWatcher<>(ListerWatcher.of(maps)); // the reflector sends the spec's selector
        SharedIndexInformer<V1ConfigMap> informer = SharedIndexInformer.builder(spec(test), gated)
                .reflectorOptions(OPTIONS).build();
        NotificationLog<V1ConfigMap> coalescing = subscribe(informer, SubscriberOptions.defaults().withName("coalescing"));
        NotificationLog<V1ConfigMap> unbounded = subscribe(informer, SubscriberOptions.defaults().unbounded().withName("unbounded"));
        Disposable running = informer.start();
        try {
            StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);
            // An event on the watch, so that cutting it reads as a normal close, not a suspiciously short watch.
            StepVerifier.create(update(test, 0, 1, 1)).expectComplete().verify(DEADLINE);
            assertConverged(informer, test, coalescing, unbounded);

            gated.disconnect();
            StepVerifier.create(Convergence.until(() -> gated.waiting() > 0, DEADLINE, Schedulers.parallel()))
                    .expectComplete().verify(DEADLINE);
            StepVerifier.create(Flux.merge(delete(test, 10, 15), update(test, 1, 5, 1), create(test, 20, 25)).then())
                    .expectComplete().verify(DEADLINE);
            env.compact();
            gated.reconnect();

            assertConverged(informer, test, coalescing, unbounded);
            assertThat(gated.watchErrors()).as("the re-watch from the compacted version")
                    .anySatisfy(e -> assertThat(e).isInstanceOf(KubernetesApiException.Gone.class));
            for (NotificationLog<V1ConfigMap> log : List.of(coalescing, unbounded)) {
                for (int i = 10; i < 15; i++) {
                    Notification.Deleted<V1ConfigMap> deleted = log.deletion(namespace + "/" + name(test, i));
                    assertThat(deleted).as("deletion of %s", name(test, i)).isNotNull();
                    assertThat(deleted.finalStateUnknown()).as("inferred from the relist").isTrue();
                }
            }
        } finally {
            running.dispose();
        }
    }

    @Test
    @Order(4)
    void recoversFromAnApiServerRestartMidWatchAndConverges() {
        String test = "restart";
        StepVerifier.create(create(test, 0, 50)).expectComplete().verify(DEADLINE);
        factory = SharedInformerFactory.builder(admin).reflectorOptions(OPTIONS).build();
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(spec(test));
        NotificationLog<V1ConfigMap> coalescing = subscribe(informer, SubscriberOptions.defaults().withName("coalescing"));
        NotificationLog<V1ConfigMap> unbounded = subscribe(informer, SubscriberOptions.defaults().unbounded().withName("unbounded"));
        factory.start();
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);
        StepVerifier.create(update(test, 0, 10, 1)).expectComplete().verify(DEADLINE);
        assertConverged(informer, test, coalescing, unbounded);

        env.restartApiServer();
        StepVerifier.create(Flux.merge(create(test, 50, 70), update(test, 10, 20, 1), delete(test, 20, 30)).then())
                .expectComplete().verify(DEADLINE);

        assertConverged(informer, test, coalescing, unbounded);
        assertThat(informer.indexer().list()).hasSize(60);
    }

    // ---- helpers

    private KubernetesClient client(String context) {
        return KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), context));
    }

    private InformerSpec<V1ConfigMap> spec(String test) {
        return InformerSpec.of(V1ConfigMap.class).inNamespace(namespace).withLabelSelector(label(test));
    }

    private static String label(String test) {
        return "test=" + test;
    }

    private static String name(String test, int i) {
        return test + "-" + i;
    }

    private Mono<Void> create(String test, int from, int to) {
        return Flux.range(from, to - from)
                .flatMap(i -> maps.create(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                                .metadata(new V1ObjectMeta().name(name(test, i)).labels(Map.of("test", test)))
                                .data(Map.of("step", "0")))
                        .retryWhen(RetryingReads.retry())
                        // a create retried after its answer was lost finds the object there
                        .onErrorResume(KubernetesApiException.Conflict.class, e -> Mono.empty()), 16)
                .then();
    }

    /** Sets {@code data.step} to {@code step}: a real change for objects at another step. */
    private Mono<Void> update(String test, int from, int to, int step) {
        return Flux.range(from, to - from)
                .flatMap(i -> maps.patch(name(test, i), PatchType.MERGE, "{\"data\":{\"step\":\"" + step + "\"}}")
                        .retryWhen(RetryingReads.retry()), 16)
                .then();
    }

    private Mono<Void> delete(String test, int from, int to) {
        return Flux.range(from, to - from)
                .flatMap(i -> maps.delete(name(test, i))
                        .retryWhen(RetryingReads.retry())
                        .onErrorResume(KubernetesApiException.NotFound.class, e -> Mono.empty()), 16)
                .then();
    }

    private void grantConfigMapReading(String user) {
        V1Role role = new V1Role().apiVersion("rbac.authorization.k8s.io/v1").kind("Role")
                .metadata(new V1ObjectMeta().name("configmap-reader"))
                .rules(List.of(new V1PolicyRule().apiGroups(List.of("")).resources(List.of("configmaps"))
                        .verbs(List.of("get", "list", "watch"))));
        V1RoleBinding binding = new V1RoleBinding().apiVersion("rbac.authorization.k8s.io/v1").kind("RoleBinding")
                .metadata(new V1ObjectMeta().name("configmap-reader"))
                .roleRef(new V1RoleRef().apiGroup("rbac.authorization.k8s.io").kind("Role").name("configmap-reader"))
                .subjects(List.of(new RbacV1Subject().apiGroup("rbac.authorization.k8s.io").kind("User").name(user)));
        StepVerifier.create(admin.resource(V1Role.class).inNamespace(namespace).create(role)
                        .then(admin.resource(V1RoleBinding.class).inNamespace(namespace).create(binding)))
                .expectNextCount(1)
                .expectComplete()
                .verify(DEADLINE);
    }

    private NotificationLog<V1ConfigMap> subscribe(SharedIndexInformer<V1ConfigMap> informer, SubscriberOptions options) {
        NotificationLog<V1ConfigMap> log = new NotificationLog<>();
        subscriptions.add(informer.notifications(options).subscribe(log));
        return log;
    }

    @SafeVarargs
    private void assertConverged(SharedIndexInformer<V1ConfigMap> informer, String test,
                                 NotificationLog<V1ConfigMap>... logs) {
        ListerWatcher<V1ConfigMap> source = new RetryingReads<>(ListerWatcher.of(maps.withLabelSelector(label(test))));
        Mono<Void> all = Convergence.cacheMatchesList(informer.indexer()::list, source, DEADLINE, Duration.ofMillis(200),
                Schedulers.parallel());
        for (NotificationLog<V1ConfigMap> log : logs) {
            all = all.then(Convergence.cacheMatchesList(log::view, source, DEADLINE, Duration.ofMillis(200),
                    Schedulers.parallel()));
        }
        StepVerifier.create(all).expectComplete().verify(DEADLINE.multipliedBy(logs.length + 1).plusSeconds(5));
        List<String> listed = new ArrayList<>(
                Convergence.versions(source.list(ListOptions.none()).block(DEADLINE).items()).keySet());
        for (NotificationLog<V1ConfigMap> log : logs) {
            assertThat(log.missedDeletions(listed)).isEmpty();
        }
    }
}
