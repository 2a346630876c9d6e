package io.reactiveinformer.e2e.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
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
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Beyond client-go: etcd restored from an older backup. The informer synced resourceVersions the restored
 * store has not reached; its re-watch is accepted and stays silent, so without a check it would keep the
 * lost timeline's objects forever. The reflector's rollback probe notices the store is older and relists.
 */
@KubeApiServerTest
class EtcdRestoreTest {

    private static final Duration DEADLINE = Duration.ofSeconds(120);
    private static final ReflectorOptions OPTIONS = ReflectorOptions.defaults()
            .withMinWatchTimeout(Duration.ofSeconds(30))
            .withIdleTimeout(Duration.ofSeconds(130))
            .withBackoff(new Backoff(Duration.ofMillis(50), 2.0, 1.0, Duration.ofSeconds(1), Duration.ofSeconds(30)));
    private static final String LABEL = "test=restore";

    @Test
    void afterEtcdIsRestoredFromAnOlderSnapshotTheCacheMatchesTheRestoredStore(KubeApiServer env) {
        try (KubernetesClient admin = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"))) {
            String namespace = "restore-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
            admin.resource(V1Namespace.class).create(new V1Namespace().apiVersion("v1").kind("Namespace")
                    .metadata(new V1ObjectMeta().name(namespace))).block(DEADLINE);
            ResourceClient<V1ConfigMap> maps = admin.resource(V1ConfigMap.class).inNamespace(namespace);
            StepVerifier.create(create(maps, 0, 20)).expectComplete().verify(DEADLINE);

            InformerSpec<V1ConfigMap> spec = InformerSpec.of(V1ConfigMap.class).inNamespace(namespace)
                    .withLabelSelector(LABEL);
            SharedIndexInformer<V1ConfigMap> informer = SharedIndexInformer.builder(spec, ListerWatcher.of(maps)).reflectorOptions(OPTIONS)
                    .build();
            NotificationLog<V1ConfigMap> subscriber = new NotificationLog<>();
            var running = Disposables.composite(informer.notifications(SubscriberOptions.defaults()).subscribe(subscriber),
                    informer.start());
            try {
                StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);
                env.snapshotEtcd("before-churn");

                // 300+ revisions after the snapshot: far more than the restarted apiserver writes by itself
                StepVerifier.create(create(maps, 20, 120)
                                .then(update(maps, 0, 100, 1)).then(update(maps, 0, 100, 2)).then(delete(maps, 0, 10)))
                        .expectComplete().verify(DEADLINE.multipliedBy(2));
                assertConverged(maps, informer);
                assertThat(informer.indexer().list()).hasSize(110);
                String lost = informer.lastSyncResourceVersion();

                // as an operator restores a cluster (and deterministically so): with the apiserver stopped. A
                // restore under a running apiserver re-initializes its watch cache, which may close a watch at
                // once; the reflector then relists without needing its probe, and the test proves nothing.
                env.stopApiServer();
                env.restoreEtcd("before-churn");
                env.startApiServer();

                assertConverged(maps, informer);
                assertConverged(maps, subscriber::view);
                assertThat(informer.indexer().list()).hasSize(20);
                List<String> listed = new ArrayList<>(Convergence.versions(
                        new RetryingReads<>(ListerWatcher.of(maps.withLabelSelector(LABEL))).list(ListOptions.none()).block(DEADLINE)
                                .items()).keySet());
                assertThat(subscriber.missedDeletions(listed)).isEmpty();
                // The control, why client-go's informer stays stale: its watch ends with the apiserver, and
                // once the server is back it watches again from the last version it synced, which the
                // restored store has not reached; the server accepts that watch and sends nothing. (An
                // informer whose watch had just restarted when the apiserver stopped lists first instead,
                // gets "too large resource version" and relists: so the control is a watch, not an
                // unprobed informer, whose path depends on that timing.) A LIST at "0" waits until the
                // watch cache is initialized, so the watch is answered from it, as an informer's would be.
                maps.list(ListOptions.none().withResourceVersion("0", null)).block(DEADLINE);
                StepVerifier.create(maps.withLabelSelector(LABEL).watch(WatchOptions.from(lost).withTimeoutSeconds(3)))
                        .as("a watch from the lost timeline's version")
                        .expectComplete().verify(DEADLINE);
            } finally {
                running.dispose();
            }
        }
    }

    private static void assertConverged(ResourceClient<V1ConfigMap> maps, SharedIndexInformer<V1ConfigMap> informer) {
        assertConverged(maps, informer.indexer()::list);
    }

    private static void assertConverged(ResourceClient<V1ConfigMap> maps,
                                        Supplier<List<V1ConfigMap>> view) {
        ListerWatcher<V1ConfigMap> source = new RetryingReads<>(ListerWatcher.of(maps.withLabelSelector(LABEL)));
        StepVerifier.create(Convergence.cacheMatchesList(view, source, DEADLINE, Duration.ofMillis(200),
                        Schedulers.parallel()))
                .expectComplete().verify(DEADLINE.plusSeconds(5));
    }

    private static Mono<Void> create(ResourceClient<V1ConfigMap> maps, int from, int to) {
        return Flux.range(from, to - from)
                .flatMap(i -> maps.create(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                                .metadata(new V1ObjectMeta().name("cm-" + i).labels(Map.of("test", "restore")))
                                .data(Map.of("step", "0")))
                        .retryWhen(RetryingReads.retry())
                        .onErrorResume(KubernetesApiException.Conflict.class, e -> Mono.empty()), 16)
                .then();
    }

    private static Mono<Void> update(ResourceClient<V1ConfigMap> maps, int from, int to, int step) {
        return Flux.range(from, to - from)
                .flatMap(i -> maps.patch("cm-" + i, PatchType.MERGE, "{\"data\":{\"step\":\"" + step + "\"}}")
                        .retryWhen(RetryingReads.retry()), 16)
                .then();
    }

    private static Mono<Void> delete(ResourceClient<V1ConfigMap> maps, int from, int to) {
        return Flux.range(from, to - from)
                .flatMap(i -> maps.delete("cm-" + i).retryWhen(RetryingReads.retry())
                        .onErrorResume(KubernetesApiException.NotFound.class, e -> Mono.empty()), 16)
                .then();
    }
}
