package io.reactiveinformer.e2e.controlplane;

import static io.reactiveinformer.e2e.controlplane.ControlPlane.CALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A controller of ours beside the cluster's: it annotates every pod the ReplicaSet controller creates for a
 * Deployment (while the scheduler binds them and kwok runs them, so the pods change under it), and every pod
 * ends up annotated, seen so by its informer.
 */
@KubeApiServerTest(controlPlane = true)
class ReplicaSetPodsControllerE2eTest {

    private static final int PODS = 200;
    private static final String ANNOTATION = "reactive-informer.io/reconciled";
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    private final KubernetesClient admin;
    private final SharedInformerFactory factory;
    private final Disposable.Composite running = Disposables.composite();
    private final String namespace;

    ReplicaSetPodsControllerE2eTest(KubeApiServer env) {
        admin = ControlPlane.admin(env);
        factory = SharedInformerFactory.builder(admin).build();
        namespace = ControlPlane.createNamespace(admin, "reconciled");
    }

    @AfterEach
    void stop() {
        running.dispose();
        factory.shutdown().block(CALL);
        admin.resource(V1Namespace.class).delete(namespace).block(CALL);
        admin.close();
    }

    @Test
    void everyPodTheReplicaSetControllerCreatesIsReconciled() {
        SharedIndexInformer<V1Pod> pods = factory.informer(InformerSpec.of(V1Pod.class).inNamespace(namespace));
        ResourceClient<V1Pod> podClient = admin.resource(V1Pod.class).inNamespace(namespace);
        Map<String, Integer> patches = new ConcurrentHashMap<>();
        Controller controller = Controller.builder(pods).name("pod-annotator").maxConcurrentReconciles(4)
                .reconciler(request -> {
                    V1Pod pod = pods.lister().namespace(namespace).get(request.name()).orElse(null);
                    if (pod == null || pod.getMetadata().getDeletionTimestamp() != null
                            || pod.getMetadata().getAnnotations() != null
                            && pod.getMetadata().getAnnotations().containsKey(ANNOTATION)) {
                        return Mono.just(Result.done());
                    }
                    return podClient.patch(request.name(), PatchType.MERGE,
                                    "{\"metadata\":{\"annotations\":{\"" + ANNOTATION + "\":\"true\"}}}")
                            .transform(Writes.observedBy(pods))
                            .doOnNext(stored -> patches.merge(request.key(), 1, Integer::sum))
                            .thenReturn(Result.done());
                })
                .build();
        running.add(controller.start());
        StepVerifier.create(controller.hasSynced()).expectComplete().verify(DEADLINE);

        admin.resource(V1Deployment.class).inNamespace(namespace).create(ControlPlane.deployment("annotated", PODS))
                .block(CALL);

        StepVerifier.create(Convergence.until(() -> {
                    List<V1Pod> cached = pods.indexer().list();
                    return cached.size() == PODS && cached.stream().allMatch(p -> "Running".equals(p.getStatus().getPhase())
                            && p.getMetadata().getAnnotations() != null
                            && p.getMetadata().getAnnotations().containsKey(ANNOTATION));
                }, DEADLINE, Schedulers.parallel()))
                .expectComplete().verify(DEADLINE.plusSeconds(5));
        // Once each: the patch is waited for in the cache, so the next reconcile of a pod sees its annotation.
        assertThat(patches).as("patches by pod").hasSize(PODS)
                .containsOnlyKeys(pods.indexer().list().stream().map(p -> namespace + "/" + p.getMetadata().getName()).toList())
                .allSatisfy((pod, count) -> assertThat(count).as(pod).isOne());
    }
}
