package io.reactiveinformer.controller;

import static io.reactiveinformer.controller.TestObjects.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * With no registry given, a controller's meters go to Micrometer's global registry, which Spring Boot fills
 * with its own: a Boot application sees its controllers' queue and reconcile meters without code.
 */
class DefaultMetersTest {

    private final FakeApiServer<V1ReplicaSet> replicaSets = new FakeApiServer<>(m -> new V1ReplicaSet().metadata(m));
    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final SimpleMeterRegistry boot = new SimpleMeterRegistry();

    @AfterEach
    void stop() {
        Metrics.removeRegistry(boot);
        time.dispose();
    }

    @Test
    void aControllerWithoutARegistryReportsToTheGlobalOne() {
        Metrics.addRegistry(boot);
        SharedIndexInformer<V1ReplicaSet> informer =
                SharedIndexInformer.builder(V1ReplicaSet.class, replicaSets).scheduler(time).build();
        replicaSets.put(replicaSet("a", "one", 1));
        replicaSets.put(replicaSet("a", "two", 1));
        Reconciles reconciles = new Reconciles(time);
        reconciles.behaviour = r -> Mono.just(Result.done());
        Disposable controller = Controller.builder(informer).name("default-meters").scheduler(time)
                .reconciler(reconciles).build().start();
        Disposable started = informer.start();
        try {
            time.advanceTimeBy(Duration.ofSeconds(1));

            assertThat(reconciles.keys()).containsExactlyInAnyOrder("a/one", "a/two");
            assertThat(boot.get("workqueue.adds").tag("name", "default-meters").counter().count()).isEqualTo(2);
            assertThat(boot.get("controller_reconcile_timeouts_total").tag("name", "default-meters")
                    .functionCounter().count()).isZero();
        } finally {
            controller.dispose();
            started.dispose();
        }
    }
}
