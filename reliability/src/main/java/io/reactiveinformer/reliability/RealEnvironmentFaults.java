package io.reactiveinformer.reliability;

import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.test.Churn;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * The faults only a real environment has, against the test environment's kube-apiserver and etcd
 * ({@link KubeApiServer#startOrAttach()}): the apiserver restarted and killed with SIGKILL, etcd restarted
 * and killed, every resourceVersion compacted away, and the informer's RBAC access revoked and granted
 * again. Two informers of one namespace's ConfigMaps, one as the admin and one as an identity granted only
 * that (the one the revocation hits), with a COALESCE and an UNBOUNDED subscriber, follow a churn made
 * through the client while each fault happens; after each, every cache and view must equal a LIST within
 * {@link #DEADLINE}.
 *
 * <p>Blocks its caller (the environment's hooks do): run it from {@link FaultBudget}'s main thread.
 */
final class RealEnvironmentFaults {

    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String RESTRICTED_USER = "testenv-restricted";
    private static final String GRANT = "configmaps";
    private static final String RBAC = "RBAC revoked, then granted";

    /** Told of each window's check: the targets that did not converge in time, and how long the check took. */
    interface Checks {
        void checked(String window, List<String> behind, long millis);
    }

    private final KubeApiServer env;
    private final Consumer<String> counted;
    private final Checks checks;

    /** {@code counted} is told each fault's kind once it happened. */
    RealEnvironmentFaults(KubeApiServer env, Consumer<String> counted, Checks checks) {
        this.env = env;
        this.counted = counted;
        this.checks = checks;
    }

    /** {@code windows} fault windows, the kinds in turn; answers the informers that ended up stopped. */
    List<String> run(int windows, long seed) {
        try (KubernetesClient admin = client("admin"); KubernetesClient restricted = client("restricted")) {
            String namespace = "reliability-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
            admin.resource(V1Namespace.class).create(new V1Namespace().apiVersion("v1").kind("Namespace")
                    .metadata(new V1ObjectMeta().name(namespace))).block(DEADLINE);
            admin.resource(V1Role.class).inNamespace(namespace).create(new V1Role().apiVersion("rbac.authorization.k8s.io/v1")
                    .kind("Role").metadata(new V1ObjectMeta().name(GRANT))
                    .rules(List.of(new V1PolicyRule().apiGroups(List.of("")).resources(List.of("configmaps"))
                            .verbs(List.of("get", "list", "watch"))))).block(DEADLINE);
            grant(admin, namespace);
            ResourceClient<V1ConfigMap> truth = admin.resource(V1ConfigMap.class).inNamespace(namespace);
            Churn churn = Churn.through(admin, ResourceType.of(V1ConfigMap.class), namespace, seed);
            withRetries(churn, 20).block(DEADLINE);

            SharedInformerFactory asAdmin = factory(admin);
            SharedInformerFactory asRestricted = factory(restricted);
            SharedIndexInformer<V1ConfigMap> adminMaps = asAdmin.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(namespace));
            SharedIndexInformer<V1ConfigMap> grantedMaps = asRestricted.informer(InformerSpec.of(V1ConfigMap.class)
                    .inNamespace(namespace));
            SubscriberView<V1ConfigMap> coalescing = new SubscriberView<>("COALESCE");
            SubscriberView<V1ConfigMap> unbounded = new SubscriberView<>("UNBOUNDED");
            SubscriberView<V1ConfigMap> granted = new SubscriberView<>("COALESCE, RBAC-granted identity");
            Disposable.Composite running = Disposables.composite(
                    adminMaps.notifications(SubscriberOptions.defaults().withName("coalescing")).subscribe(coalescing),
                    adminMaps.notifications(SubscriberOptions.defaults().unbounded().withName("unbounded")).subscribe(unbounded),
                    grantedMaps.notifications(SubscriberOptions.defaults().withName("granted")).subscribe(granted));
            asAdmin.start();
            asRestricted.start();
            try {
                asAdmin.waitForCacheSync().then(asRestricted.waitForCacheSync()).block(DEADLINE);
                Map<String, Supplier<List<V1ConfigMap>>> targets = Map.of(
                        "real env: informer ConfigMaps (admin)", adminMaps.indexer()::list,
                        "real env: informer ConfigMaps (RBAC-granted identity)", grantedMaps.indexer()::list,
                        "real env: subscriber COALESCE", coalescing::objects,
                        "real env: subscriber UNBOUNDED", unbounded::objects,
                        "real env: subscriber of the RBAC-granted informer", granted::objects);
                for (int window = 0; window < windows; window++) {
                    // the process faults in turn, then the RBAC revocation
                    List<ProcessFault> processFaults = ProcessFault.OF_STORAGE;
                    int turn = window % (processFaults.size() + 1);
                    ProcessFault fault = turn < processFaults.size() ? processFaults.get(turn) : null;
                    String kind = fault != null ? fault.label : RBAC;
                    // the churn goes on through the fault: what the server refused meanwhile is simply not there
                    Disposable changes = withRetries(churn, 30).subscribe();
                    if (fault != null) {
                        fault.inject(env);
                    } else {
                        revokeThenGrant(admin, namespace, grantedMaps);
                    }
                    counted.accept(kind);
                    withRetries(churn, 10).block(DEADLINE);
                    changes.dispose();
                    check("real environment, " + kind + " (window " + (window + 1) + ")", targets, truth);
                }
                return Flux.just(adminMaps, grantedMaps).filter(SharedIndexInformer::isStopped)
                        .map(SharedIndexInformer::name).collectList().block();
            } finally {
                running.dispose();
                asAdmin.shutdown().then(asRestricted.shutdown()).block(DEADLINE);
                admin.resource(V1Namespace.class).delete(namespace).onErrorResume(e -> Mono.empty()).block(DEADLINE);
            }
        }
    }

    private void revokeThenGrant(KubernetesClient admin, String namespace, SharedIndexInformer<?> granted) {
        admin.resource(V1RoleBinding.class).inNamespace(namespace).delete(GRANT).block(DEADLINE);
        // revoked: the informer must see it (its health says forbidden) before access comes back
        Convergence.until(() -> granted.health().forbidden(), DEADLINE, Schedulers.parallel())
                .block(DEADLINE.plusSeconds(30));
        grant(admin, namespace);
    }

    private void check(String window, Map<String, Supplier<List<V1ConfigMap>>> targets, ResourceClient<V1ConfigMap> truth) {
        long start = System.nanoTime();
        List<String> behind = new ArrayList<>();
        ListerWatcher<V1ConfigMap> server = listsThroughOutages(ListerWatcher.of(truth));
        for (Map.Entry<String, Supplier<List<V1ConfigMap>>> target : new TreeMap<>(targets).entrySet()) {
            boolean converged = Convergence.cacheMatchesList(target.getValue(), server, DEADLINE, Schedulers.parallel())
                    .then(Mono.just(true)).onErrorReturn(AssertionError.class, false)
                    // bounded here too: a wait of the fault-budget runner once outlived its own deadline
                    .block(DEADLINE.plusSeconds(30));
            if (!converged) {
                behind.add(target.getKey());
            }
        }
        checks.checked(window, behind, (System.nanoTime() - start) / 1_000_000);
    }

    /** Lists again after a failure: a check may begin while the server is still coming back. */
    static <T> ListerWatcher<T> listsThroughOutages(ListerWatcher<T> source) {
        return new ListerWatcher<>() {
            @Override
            public Mono<ObjectList<T>> list(ListOptions options) {
                return source.list(options).retryWhen(Retry.fixedDelay(Long.MAX_VALUE, Duration.ofMillis(200))
                        .filter(KubernetesClientException.class::isInstance));
            }

            @Override
            public Flux<WatchEvent<T>> watch(WatchOptions options) {
                return source.watch(options);
            }
        };
    }

    /** {@code count} changes; a change the server refused (it was down, or the object is gone) is skipped. */
    private static Mono<Void> withRetries(Churn churn, int count) {
        return Flux.range(0, count).concatMap(i -> churn.next()
                .onErrorResume(KubernetesClientException.class, e -> Mono.empty())).then();
    }

    private void grant(KubernetesClient admin, String namespace) {
        admin.resource(V1RoleBinding.class).inNamespace(namespace).create(new V1RoleBinding()
                        .apiVersion("rbac.authorization.k8s.io/v1").kind("RoleBinding").metadata(new V1ObjectMeta().name(GRANT))
                        .roleRef(new V1RoleRef().apiGroup("rbac.authorization.k8s.io").kind("Role").name(GRANT))
                        .subjects(List.of(new RbacV1Subject().apiGroup("rbac.authorization.k8s.io").kind("User")
                                .name(RESTRICTED_USER))))
                .onErrorResume(KubernetesApiException.Conflict.class, e -> Mono.empty())
                .block(DEADLINE);
    }

    private KubernetesClient client(String context) {
        return KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), context));
    }

    private static SharedInformerFactory factory(KubernetesClient client) {
        // watches rotate every 2-4 s: an open watch outlives a revoked RoleBinding, the next request does not
        return SharedInformerFactory.builder(client).reflectorOptions(ReflectorOptions.defaults()
                        .withMinWatchTimeout(Duration.ofSeconds(2))
                        .withBackoff(new Backoff(Duration.ofMillis(100), 2.0, 1.0, Duration.ofSeconds(2), Duration.ofSeconds(30))))
                .build();
    }
}
