package io.reactiveinformer.e2e.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.Request;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import io.reactiveinformer.workqueue.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A reconciler that never completes for one ConfigMap, on the real kube-apiserver, in a controller with a
 * single reconcile slot and a reconcile timeout of {@value #TIMEOUT_MS} ms: without the timeout the hung
 * reconcile would hold the slot for ever and nothing else would be reconciled. With it, the other ConfigMaps
 * are reconciled (each reconcile writes the data it read into an annotation, through the API server) and
 * reconciled again when they change, the hung one is cancelled at each timeout and retried after the rate
 * limiter's growing delay (exponential from {@value #BASE_MS} ms), and every timeout is counted in
 * {@code controller_reconcile_timeouts_total}. The same behaviour on a fake server in virtual time is
 * {@code ReconcileTimeoutTest}.
 */
@KubeApiServerTest
class ReconcileTimeoutE2eTest {

    private static final long TIMEOUT_MS = 1_000;
    private static final long BASE_MS = 250;
    private static final int OTHERS = 6;
    private static final String HUNG = "hangs";
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private final KubernetesClient admin;
    private final String namespace = "timeout-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
    private final ResourceClient<V1ConfigMap> maps;
    private final Disposable.Composite running = Disposables.composite();

    ReconcileTimeoutE2eTest(KubeApiServer env) {
        admin = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"));
        maps = admin.resource(V1ConfigMap.class).inNamespace(namespace);
    }

    @AfterEach
    void stop() {
        running.dispose();
        admin.resource(V1Namespace.class).delete(namespace).onErrorResume(e -> Mono.empty()).block(DEADLINE);
        admin.close();
    }

    private static long millis() {
        return System.nanoTime() / 1_000_000;
    }

    /** Until {@code condition} holds, checked every 100 ms on boundedElastic (it may call the API server). */
    private static void await(BooleanSupplier condition, String what) {
        Mono.fromCallable(condition::getAsBoolean)
                .subscribeOn(Schedulers.boundedElastic())
                .filter(holds -> holds)
                .repeatWhenEmpty(Integer.MAX_VALUE, tries -> tries.concatMap(i -> Mono.delay(Duration.ofMillis(100))))
                .timeout(DEADLINE, Mono.error(() -> new AssertionError("not within " + DEADLINE + ": " + what)))
                .block();
    }

    /** Whether every ConfigMap but the hung one carries, as stored, the annotation of its data {@code value}. */
    private boolean othersReconciledAt(String value) {
        return maps.list(ListOptions.none()).block(DEADLINE).items().stream()
                .filter(m -> m.getMetadata().getName().startsWith("map-"))
                .filter(m -> m.getMetadata().getAnnotations() != null
                        && value.equals(m.getMetadata().getAnnotations().get("reconciled")))
                .count() == OTHERS;
    }

    private void touchOthers(String value) {
        Flux.range(0, OTHERS).flatMap(i -> maps.patch("map-" + i, PatchType.MERGE,
                "{\"data\":{\"v\":\"" + value + "\"}}")).then().block(DEADLINE);
    }

    @Test
    void aHungReconcileIsCancelledAndRetriedWithBackoffWhileTheOtherKeysAreReconciled() {
        admin.resource(V1Namespace.class).create(new V1Namespace().apiVersion("v1").kind("Namespace")
                .metadata(new V1ObjectMeta().name(namespace))).block(DEADLINE);
        Flux.concat(Flux.just(HUNG), Flux.range(0, OTHERS).map(i -> "map-" + i))
                .flatMap(name -> maps.create(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                        .metadata(new V1ObjectMeta().name(name)).data(Map.of("v", "first"))))
                .then().block(DEADLINE);

        SharedInformerFactory factory = SharedInformerFactory.builder(admin).build();
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(namespace));
        List<Long> hungStarts = new CopyOnWriteArrayList<>();
        AtomicInteger hungCancelled = new AtomicInteger();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        running.add(Controller.builder(informer).name("hung").meterRegistry(meters)
                .maxConcurrentReconciles(1)
                .reconcileTimeout(Duration.ofMillis(TIMEOUT_MS))
                .rateLimiter(RateLimiter.exponential(Duration.ofMillis(BASE_MS), Duration.ofSeconds(30)))
                .reconciler((Request request) -> {
                    if (request.name().equals(HUNG)) {
                        hungStarts.add(millis());
                        return Mono.<Result>never().doOnCancel(hungCancelled::incrementAndGet);
                    }
                    V1ConfigMap map = informer.lister().namespace(namespace).get(request.name()).orElse(null);
                    if (map == null) {
                        return Mono.just(Result.done());
                    }
                    return maps.patch(request.name(), PatchType.MERGE, "{\"metadata\":{\"annotations\":{\"reconciled\":\""
                                    + map.getData().get("v") + "\"}}}")
                            .thenReturn(Result.done());
                })
                .build().start());
        running.add(() -> factory.shutdown().subscribe());
        factory.start();

        await(() -> othersReconciledAt("first"), "every other ConfigMap reconciled beside the hung one");
        await(() -> hungStarts.size() >= 3, "the hung ConfigMap retried twice");
        touchOthers("second");
        await(() -> othersReconciledAt("second"), "every other ConfigMap reconciled again after a change");
        await(() -> hungStarts.size() >= 5, "the hung ConfigMap retried four times");

        List<Long> starts = List.copyOf(hungStarts);
        int ended = starts.size() - 1; // the last attempt may still be running
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < starts.size(); i++) {
            long gap = starts.get(i) - starts.get(i - 1);
            gaps.add(gap);
            // the attempt ran until the timeout, then waited the rate limiter's delay: base x 2^(retry - 1)
            assertThat(gap).as("start-to-start gap before retry %d (all: %s)", i, gaps)
                    .isGreaterThanOrEqualTo(TIMEOUT_MS + (BASE_MS << (i - 1)));
        }
        double timeouts = meters.get("controller_reconcile_timeouts_total").tag("name", "hung").functionCounter().count();
        int cancelled = hungCancelled.get();
        int startedSince = hungStarts.size();
        // an attempt starts only after the previous one timed out; the last one may be running or timing out now
        assertThat(timeouts).as("timeouts counted").isBetween((double) ended, (double) startedSince);
        assertThat(cancelled).as("attempts cancelled").isBetween(ended, startedSince);
        System.out.printf("reconcile timeout on kube-apiserver: hung attempts %d, gaps between their starts %s ms "
                        + "(timeout %d ms + backoff from %d ms), %d timeouts counted%n",
                starts.size(), gaps, TIMEOUT_MS, BASE_MS, (long) timeouts);
    }
}
