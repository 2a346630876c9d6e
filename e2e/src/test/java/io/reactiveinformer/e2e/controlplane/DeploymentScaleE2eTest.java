package io.reactiveinformer.e2e.controlplane;

import static io.reactiveinformer.e2e.controlplane.ControlPlane.CALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.e2e.informer.NotificationLog;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A Deployment scaled from 0 to {@value #PODS} pods and back, the Deployment and ReplicaSet controllers, the
 * scheduler and kwok doing the work. After each step every informer (pods, ReplicaSets, Deployments) and one
 * subscriber of each, its notifications folded into a map, equal a fresh LIST, by name and resourceVersion,
 * and no subscriber missed a deletion.
 */
@KubeApiServerTest(controlPlane = true)
class DeploymentScaleE2eTest {

    private static final int PODS = 2_000;
    private static final Duration STEP_DEADLINE = Duration.ofMinutes(3);
    private static final Duration CHECK_DEADLINE = Duration.ofSeconds(60);
    /** A LIST of thousands of pods is megabytes: compared every half second, not every 20 ms. */
    private static final Duration CHECK_PERIOD = Duration.ofMillis(500);

    private final KubernetesClient admin;
    private final SharedInformerFactory factory;
    private final Disposable.Composite running = Disposables.composite();
    private final String namespace;

    DeploymentScaleE2eTest(KubeApiServer env) {
        admin = ControlPlane.admin(env);
        factory = SharedInformerFactory.builder(admin).build();
        namespace = ControlPlane.createNamespace(admin, "scale");
    }

    @AfterEach
    void stop() {
        running.dispose();
        factory.shutdown().block(CALL);
        admin.resource(V1Namespace.class).delete(namespace).block(CALL);
        admin.close();
    }

    /** An informer of one resource in the test's namespace, a subscriber of it, and the client to LIST with. */
    private record Followed<T extends KubernetesObject>(SharedIndexInformer<T> informer, NotificationLog<T> subscriber,
                                                        ResourceClient<T> source) {
    }

    private <T extends KubernetesObject> Followed<T> follow(Class<T> type) {
        SharedIndexInformer<T> informer = factory.informer(InformerSpec.of(type).inNamespace(namespace));
        NotificationLog<T> subscriber = new NotificationLog<>();
        running.add(informer.notifications().subscribe(subscriber));
        return new Followed<>(informer, subscriber, admin.resource(type).inNamespace(namespace));
    }

    @Test
    void everyCacheAndSubscriberEqualsAFreshListAfterEachStep() {
        admin.resource(V1Deployment.class).inNamespace(namespace).create(ControlPlane.deployment("scaled", 0)).block(CALL);
        Followed<V1Pod> pods = follow(V1Pod.class);
        Followed<V1ReplicaSet> replicaSets = follow(V1ReplicaSet.class);
        Followed<V1Deployment> deployments = follow(V1Deployment.class);
        factory.start();
        StepVerifier.create(factory.waitForCacheSync()).expectComplete().verify(CALL);

        for (int replicas : new int[] {PODS, 0}) {
            long start = System.nanoTime();
            ControlPlane.scale(admin, namespace, "scaled", replicas);
            StepVerifier.create(Convergence.until(() -> rolledOut(deployments.informer(), replicas)
                                    && pods.informer().indexer().list().size() == replicas
                                    && pods.informer().indexer().list().stream()
                                            .allMatch(p -> "Running".equals(p.getStatus().getPhase())),
                            STEP_DEADLINE, Schedulers.parallel())
                            .onErrorMap(AssertionError.class, e -> new AssertionError("scaling to " + replicas + ": "
                                    + e.getMessage() + "; seen: " + describe(deployments.informer(), pods.informer()), e)))
                    .expectComplete().verify(STEP_DEADLINE.plusSeconds(5));
            long rolledOut = System.nanoTime();
            assertMatchesList(pods);
            assertMatchesList(replicaSets);
            assertMatchesList(deployments);
            System.out.printf("scaled to %d pods: rolled out and seen in %d ms, caches and subscribers equal to a"
                            + " LIST %d ms later%n", replicas, (rolledOut - start) / 1_000_000,
                    (System.nanoTime() - rolledOut) / 1_000_000);
        }
        assertThat(pods.subscriber().shownKeys()).as("pods seen over both steps").hasSize(PODS);
    }

    private static boolean rolledOut(SharedIndexInformer<V1Deployment> deployments, int replicas) {
        List<V1Deployment> cached = deployments.indexer().list();
        return cached.size() == 1 && ControlPlane.rolledOut(cached.get(0), replicas);
    }

    private static String describe(SharedIndexInformer<V1Deployment> deployments, SharedIndexInformer<V1Pod> pods) {
        Map<String, Long> phases = pods.indexer().list().stream().collect(Collectors.groupingBy(
                p -> p.getStatus() == null ? "no status" : String.valueOf(p.getStatus().getPhase()), TreeMap::new,
                Collectors.counting()));
        return deployments.indexer().list().stream().map(d -> "generation " + d.getMetadata().getGeneration()
                + ", status " + d.getStatus()).toList() + ", pods by phase " + phases;
    }

    private static <T extends KubernetesObject> void assertMatchesList(Followed<T> followed) {
        ListerWatcher<T> source = ListerWatcher.of(followed.source());
        StepVerifier.create(Mono.when(
                                Convergence.cacheMatchesList(followed.informer().indexer()::list, source, CHECK_DEADLINE,
                                        CHECK_PERIOD, Schedulers.parallel()),
                                Convergence.cacheMatchesList(followed.subscriber()::view, source, CHECK_DEADLINE,
                                        CHECK_PERIOD, Schedulers.parallel())))
                .expectComplete().verify(CHECK_DEADLINE.plusSeconds(5));
        List<String> listed = List.copyOf(Convergence.versions(
                followed.source().list(ListOptions.none()).block(CALL).items()).keySet());
        assertThat(followed.subscriber().missedDeletions(listed)).as(followed.informer().name()).isEmpty();
    }
}
