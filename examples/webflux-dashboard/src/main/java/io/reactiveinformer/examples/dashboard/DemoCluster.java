package io.reactiveinformer.examples.dashboard;

import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1HTTPGetAction;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import io.kubernetes.client.openapi.models.V1Probe;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * The demo's cluster when there is no {@code $KUBECONFIG}: pods in three namespaces on the embedded
 * simulated API server, and, with {@code dashboard.demo-churn=true}, one change per second (a pod
 * changes phase, restarts, appears or goes) so the page has something to follow.
 */
@Component
@ConditionalOnProperty(prefix = "reactive-informer.simulated", name = "enabled", havingValue = "true")
class DemoCluster implements DisposableBean {

    static final List<String> NAMESPACES = List.of("shop", "payments", "search");
    private static final List<String> PHASES = List.of("Pending", "Running", "Running", "Running", "Succeeded", "Failed");

    private final ClusterState state;
    private final SplittableRandom random = new SplittableRandom(7);
    private final Disposable churn;
    private int created;

    DemoCluster(SimulatedApiServer server,
                @org.springframework.beans.factory.annotation.Value("${dashboard.demo-churn:false}") boolean churn) {
        this.state = server.state();
        seed(state);
        created = state.list(V1Pod.class).size();
        this.churn = churn
                ? Flux.interval(Duration.ofSeconds(1), Schedulers.single()).subscribe(tick -> step())
                : Disposables.disposed();
    }

    /** Two to four pods per namespace, once. */
    static void seed(ClusterState state) {
        if (!state.list(V1Pod.class).isEmpty()) {
            return;
        }
        int n = 0;
        for (String namespace : NAMESPACES) {
            for (int i = 0; i < 2 + NAMESPACES.indexOf(namespace); i++) {
                state.create(pod(namespace, namespace + "-" + i, n++ % 5 == 0 ? "Pending" : "Running"));
            }
        }
    }

    /** A pod as a deployment would make it: one container with a port, a probe and limits. */
    static V1Pod pod(String namespace, String name, String phase) {
        return new V1Pod().apiVersion("v1").kind("Pod")
                .metadata(new V1ObjectMeta().namespace(namespace).name(name).labels(Map.of("app", namespace)))
                .spec(new V1PodSpec().nodeName("node-" + Math.floorMod(name.hashCode(), 3))
                        .addContainersItem(new V1Container().name("app").image("registry.example/" + namespace + ":1.0")
                                .addPortsItem(new V1ContainerPort().containerPort(8080))
                                .readinessProbe(new V1Probe().httpGet(new V1HTTPGetAction().path("/ready")
                                        .port(new IntOrString(8080))))
                                .resources(new V1ResourceRequirements()
                                        .limits(Map.of("cpu", new Quantity("500m"), "memory", new Quantity("256Mi"))))))
                .status(new V1PodStatus().phase(phase)
                        .addContainerStatusesItem(new V1ContainerStatus().name("app").image("app").imageID("")
                                .ready("Running".equals(phase)).restartCount(0)));
    }

    private void step() {
        List<V1Pod> pods = state.list(V1Pod.class);
        int action = random.nextInt(10);
        if (pods.size() < 4 || action < 2) {
            String namespace = NAMESPACES.get(random.nextInt(NAMESPACES.size()));
            state.create(pod(namespace, namespace + "-" + created++, "Pending"));
        } else if (action < 3) {
            state.delete(pods.get(random.nextInt(pods.size())));
        } else {
            V1Pod pod = pods.get(random.nextInt(pods.size()));
            String phase = PHASES.get(random.nextInt(PHASES.size()));
            V1ContainerStatus status = pod.getStatus().getContainerStatuses().get(0);
            status.ready("Running".equals(phase)).restartCount(status.getRestartCount() + (random.nextInt(4) == 0 ? 1 : 0));
            pod.getStatus().phase(phase);
            state.updateStatus(pod);
        }
    }

    @Override
    public void destroy() {
        churn.dispose();
    }
}
