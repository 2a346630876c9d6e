package io.reactiveinformer.e2e.controlplane;

import static io.reactiveinformer.e2e.controlplane.ControlPlane.CALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The test kit's control-plane faults, as the soak injects them: kube-controller-manager and kube-scheduler
 * killed with SIGKILL and started again, and restarted. A Deployment made while both are down gets its pods
 * once the controller manager is back, they stay unbound until the scheduler is, and a scale after both
 * restarted is carried out; an informer of the pods sees each state.
 */
@KubeApiServerTest(controlPlane = true)
class ControlPlaneRestartsE2eTest {

    private static final Duration DEADLINE = Duration.ofMinutes(2);

    private final KubeApiServer env;
    private final KubernetesClient admin;
    private final SharedInformerFactory factory;
    private final String namespace;

    ControlPlaneRestartsE2eTest(KubeApiServer env) {
        this.env = env;
        admin = ControlPlane.admin(env);
        factory = SharedInformerFactory.builder(admin).build();
        namespace = ControlPlane.createNamespace(admin, "restarts");
    }

    @AfterEach
    void stop() {
        // whatever failed, the environment is left whole for the tests after this one
        env.startControllerManager();
        env.startScheduler();
        factory.shutdown().block(CALL);
        admin.resource(V1Namespace.class).delete(namespace).block(CALL);
        admin.close();
    }

    @Test
    void podsOfADeploymentFollowTheControllerManagerAndTheSchedulerThroughKillsAndRestarts() {
        SharedIndexInformer<V1Pod> pods = factory.informer(InformerSpec.of(V1Pod.class).inNamespace(namespace));
        factory.start();
        factory.waitForCacheSync().block(CALL);

        env.killControllerManager();
        env.killScheduler();
        admin.resource(V1Deployment.class).inNamespace(namespace).create(ControlPlane.deployment("restarted", 5))
                .block(CALL);

        env.startControllerManager();
        awaitPods(pods, 5, pod -> true);
        // the pods stay unbound while the scheduler is down: nothing else binds them
        assertThat(pods.indexer().list()).allSatisfy(pod -> {
            assertThat(pod.getSpec().getNodeName()).as("node of %s", pod.getMetadata().getName()).isNull();
            assertThat(pod.getStatus().getPhase()).isEqualTo("Pending");
        });

        env.startScheduler();
        awaitPods(pods, 5, ControlPlaneRestartsE2eTest::running);

        env.restartControllerManager();
        env.restartScheduler();
        ControlPlane.scale(admin, namespace, "restarted", 8);
        awaitPods(pods, 8, ControlPlaneRestartsE2eTest::running);
    }

    private static boolean running(V1Pod pod) {
        return pod.getSpec().getNodeName() != null && "Running".equals(pod.getStatus().getPhase());
    }

    private static void awaitPods(SharedIndexInformer<V1Pod> pods, int count, Predicate<V1Pod> each) {
        StepVerifier.create(Convergence.until(() -> {
                    List<V1Pod> cached = pods.indexer().list();
                    return cached.size() == count && cached.stream().allMatch(each);
                }, DEADLINE, Schedulers.parallel()))
                .expectComplete().verify(DEADLINE.plusSeconds(5));
    }
}
