package io.reactiveinformer.e2e.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.controller.Writes;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A write-heavy reconciler on the real kube-apiserver: each reconcile reads a ConfigMap's count from the cache,
 * writes count + 1 (an unconditional update, as a patch would be) and asks to look again 1 ms later, until
 * the count reaches {@value #TARGET}. Each reconcile is checked against its request's last write: with the
 * writes marked {@link Writes#observedBy} none reads an older version and no increment is lost. The same
 * reconciler unmarked is run too and its stale reads are reported, not asserted (they depend on how fast the
 * watch delivers).
 */
@KubeApiServerTest
class ReadYourWritesE2eTest {

    private static final int MAPS = 10;
    private static final int TARGET = 20;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private final KubernetesClient admin;
    private final Disposable.Composite running = Disposables.composite();

    ReadYourWritesE2eTest(KubeApiServer env) {
        admin = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"));
    }

    @AfterEach
    void stop() {
        running.dispose();
        admin.close();
    }

    private record Counts(int reconciles, int staleReads, int lost) {
    }

    private Counts run(boolean observed) {
        String namespace = "ryow-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        admin.resource(V1Namespace.class).create(new V1Namespace().apiVersion("v1").kind("Namespace")
                .metadata(new V1ObjectMeta().name(namespace))).block(DEADLINE);
        ResourceClient<V1ConfigMap> maps = admin.resource(V1ConfigMap.class).inNamespace(namespace);
        Flux.range(0, MAPS).flatMap(i -> maps.create(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                .metadata(new V1ObjectMeta().name("map-" + i).annotations(Map.of("count", "0"))))).then().block(DEADLINE);

        SharedInformerFactory factory = SharedInformerFactory.builder(admin).build();
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(namespace));
        Map<String, Long> lastWritten = new ConcurrentHashMap<>();
        Map<String, Integer> writes = new ConcurrentHashMap<>();
        AtomicInteger reconciles = new AtomicInteger();
        AtomicInteger stale = new AtomicInteger();
        running.add(Controller.builder(informer).name(observed ? "observed" : "unobserved").maxConcurrentReconciles(4)
                .reconciler(request -> {
                    V1ConfigMap cached = informer.lister().namespace(namespace).get(request.name()).orElse(null);
                    if (cached == null) {
                        return Mono.just(Result.done());
                    }
                    reconciles.incrementAndGet();
                    if (Long.parseLong(cached.getMetadata().getResourceVersion()) < lastWritten.getOrDefault(request.key(), 0L)) {
                        stale.incrementAndGet();
                    }
                    if (writes.getOrDefault(request.key(), 0) >= TARGET) {
                        return Mono.just(Result.done());
                    }
                    int count = Integer.parseInt(cached.getMetadata().getAnnotations().get("count"));
                    Mono<V1ConfigMap> write = maps.replace(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                            .metadata(new V1ObjectMeta().name(request.name()).annotations(Map.of("count", Integer.toString(count + 1)))));
                    return (observed ? write.transform(Writes.observedBy(informer)) : write)
                            .doOnNext(stored -> {
                                lastWritten.put(request.key(), Long.parseLong(stored.getMetadata().getResourceVersion()));
                                writes.merge(request.key(), 1, Integer::sum);
                            })
                            .thenReturn(Result.requeueAfter(Duration.ofMillis(1)));
                })
                .build().start());
        running.add(() -> factory.shutdown().block(DEADLINE));

        StepVerifier.create(Convergence.until(() -> writes.size() == MAPS
                        && writes.values().stream().allMatch(n -> n >= TARGET), DEADLINE, Schedulers.parallel()))
                .verifyComplete();
        int lost = maps.list(io.reactiveinformer.api.ListOptions.none()).block(DEADLINE).items().stream()
                .mapToInt(m -> TARGET - Integer.parseInt(m.getMetadata().getAnnotations().get("count"))).sum();
        admin.resource(V1Namespace.class).delete(namespace).block(DEADLINE);
        return new Counts(reconciles.get(), stale.get(), lost);
    }

    @Test
    void noReconcileReadsAVersionOlderThanItsOwnLastWrite() {
        Counts without = run(false);
        Counts with = run(true);
        System.out.printf("read-your-own-writes on kube-apiserver, %d maps x %d writes: without %s, with %s%n",
                MAPS, TARGET, without, with);

        assertThat(with.staleReads()).as("stale reads with the guarantee (without it: %s)", without).isZero();
        assertThat(with.lost()).as("increments lost with the guarantee").isZero();
    }
}
