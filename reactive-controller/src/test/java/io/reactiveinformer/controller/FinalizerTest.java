package io.reactiveinformer.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A controller that keeps one "external" record per ConfigMap (a set standing for a file or a row elsewhere)
 * behind the finalizer {@code example.com/cleanup}, over HTTP against the simulated API server, which refuses a
 * finalizer added to an object being deleted as kube-apiserver does.
 */
@Timeout(30)
class FinalizerTest {

    private static final String FINALIZER = "example.com/cleanup";

    private final SimulatedApiServer server = SimulatedApiServer.start();
    private final KubernetesClient client = KubernetesClient.create(ClientConfig.forServer(server.url()));
    private final ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class).inNamespace("default");
    private final SharedIndexInformer<V1ConfigMap> informer = SharedIndexInformer.builder(V1ConfigMap.class,
            io.reactiveinformer.watch.ListerWatcher.of(client.resource(V1ConfigMap.class).inAnyNamespace())).build();
    private final Set<String> external = ConcurrentHashMap.newKeySet();
    private final List<V1ConfigMap> reconciled = new CopyOnWriteArrayList<>();
    private final AtomicInteger cleanups = new AtomicInteger();
    private final AtomicBoolean externalStoreUp = new AtomicBoolean(true);
    private final AtomicInteger failedCleanups = new AtomicInteger();
    private final AtomicInteger reconciles = new AtomicInteger();
    private final List<Disposable> toStop = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        toStop.forEach(Disposable::dispose);
        client.close();
        server.close();
    }

    private void startController() {
        Finalizer<V1ConfigMap> finalizer = Finalizer.builder(FINALIZER, informer, client.resource(V1ConfigMap.class))
                .reconcile(map -> {
                    reconciled.add(map);
                    external.add(map.getMetadata().getName());
                    return Mono.just(Result.done());
                })
                .cleanup(map -> Mono.fromRunnable(() -> {
                    if (!externalStoreUp.get()) {
                        failedCleanups.incrementAndGet();
                        throw new IllegalStateException("the external store is unavailable");
                    }
                    cleanups.incrementAndGet();
                    external.remove(map.getMetadata().getName());
                }))
                .build();
        toStop.add(Controller.builder(informer).name("external")
                .reconciler(request -> finalizer.reconcile(request).doOnTerminate(reconciles::incrementAndGet))
                .build().start());
        toStop.add(() -> informer.start().dispose());
    }

    private static V1ConfigMap map(String name, String... finalizers) {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name(name)
                .finalizers(finalizers.length == 0 ? null : List.of(finalizers))).data(Map.of("k", "v"));
    }

    private Optional<V1ConfigMap> stored(String name) {
        return server.state().find(ResourceType.of(V1ConfigMap.class), "default", name);
    }

    private static void await(BooleanSupplier condition) {
        StepVerifier.create(Convergence.until(condition, Duration.ofSeconds(10), Schedulers.parallel())).verifyComplete();
    }

    @Test
    void theFinalizerIsStoredBeforeTheFirstReconcileAndTheCleanupRunsOnceBeforeTheObjectGoes() {
        startController();
        maps.create(map("w")).block(Duration.ofSeconds(5));
        await(() -> external.contains("w"));

        assertThat(reconciled).as("every reconcile saw the object with the finalizer stored")
                .allSatisfy(m -> assertThat(m.getMetadata().getFinalizers()).containsExactly(FINALIZER));
        assertThat(stored("w").orElseThrow().getMetadata().getFinalizers()).containsExactly(FINALIZER);

        maps.delete("w").block(Duration.ofSeconds(5));
        await(() -> stored("w").isEmpty());

        assertThat(external).as("cleaned up before the object went").isEmpty();
        assertThat(cleanups).hasValue(1);
    }

    @Test
    void aFailedCleanupKeepsTheFinalizerAndIsRetriedWithBackoff() {
        externalStoreUp.set(false);
        startController();
        maps.create(map("w")).block(Duration.ofSeconds(5));
        await(() -> external.contains("w"));

        maps.delete("w").block(Duration.ofSeconds(5));
        await(() -> failedCleanups.get() >= 2);
        assertThat(stored("w").orElseThrow().getMetadata().getFinalizers()).as("kept while the cleanup fails")
                .containsExactly(FINALIZER);
        assertThat(external).contains("w");

        externalStoreUp.set(true);
        await(() -> stored("w").isEmpty());

        assertThat(cleanups).as("the one cleanup that succeeded let the object go").hasValue(1);
        assertThat(external).isEmpty();
    }

    @Test
    void anObjectAlreadyBeingDeletedNeverGetsTheFinalizerNorAReconcile() {
        server.state().create(map("doomed", "other.io/hold"));
        server.state().delete(stored("doomed").orElseThrow());
        assertThat(stored("doomed").orElseThrow().getMetadata().getDeletionTimestamp()).isNotNull();

        startController();
        await(() -> reconciles.get() >= 1);

        assertThat(server.requests()).as("no write").noneMatch(r -> !r.isRead() && !r.isWatch());
        assertThat(stored("doomed").orElseThrow().getMetadata().getFinalizers()).containsExactly("other.io/hold");
        assertThat(reconciled).isEmpty();
        assertThat(cleanups).hasValue(0);
    }
}
