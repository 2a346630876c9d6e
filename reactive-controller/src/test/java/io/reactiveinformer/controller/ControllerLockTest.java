package io.reactiveinformer.controller;

import static io.reactiveinformer.controller.TestObjects.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.scheduler.VirtualTimeScheduler;

/** A controller's state is under a lock of its own: users holding the controller's monitor do not stop it. */
class ControllerLockTest {

    @Test
    void aUserLockingTheControllerDoesNotHoldUpItsLifecycle() throws Exception {
        FakeApiServer<V1ReplicaSet> replicaSets = new FakeApiServer<>(m -> new V1ReplicaSet().metadata(m));
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        SharedIndexInformer<V1ReplicaSet> informer =
                SharedIndexInformer.builder(V1ReplicaSet.class, replicaSets).scheduler(time).build();
        replicaSets.put(replicaSet("a", "one", 1));
        Controller controller = Controller.builder(informer).name("locked").scheduler(time)
                .reconciler(new Reconciles(time)).build();
        Disposable informing = informer.start();
        try {
            synchronized (controller) {
                Disposable running = CompletableFuture.supplyAsync(controller::start).get(10, TimeUnit.SECONDS);
                time.advanceTimeBy(Duration.ofSeconds(1));
                CompletableFuture.runAsync(running::dispose).get(10, TimeUnit.SECONDS);
                assertThat(CompletableFuture.supplyAsync(running::isDisposed).get(10, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            informing.dispose();
            time.dispose();
        }
    }
}
