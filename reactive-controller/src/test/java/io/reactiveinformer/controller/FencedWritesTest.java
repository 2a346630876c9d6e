package io.reactiveinformer.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.FencedWriteException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.leaderelection.InMemoryLeases;
import io.reactiveinformer.leaderelection.TestElectors;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A leader-elected controller whose reconciles write over HTTP to the simulated API server. A replica that was
 * paused is modelled by the election's clock jumping past the renew deadline in the middle of a reconcile, with
 * none of the election's timers run: exactly what a replica sees on resuming from {@code SIGSTOP} or a long GC
 * pause before its deadline task has had a chance to cancel anything.
 */
@Timeout(30)
class FencedWritesTest {

    private final SimulatedApiServer server = SimulatedApiServer.start();
    private final KubernetesClient client = KubernetesClient.create(ClientConfig.forServer(server.url()));
    private final ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class).inNamespace("default");
    private final SharedIndexInformer<V1ConfigMap> informer = SharedIndexInformer.builder(V1ConfigMap.class,
            ListerWatcher.of(client.resource(V1ConfigMap.class).inAnyNamespace())).build();
    private final JumpingClock clock = new JumpingClock();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final List<Disposable> toStop = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        toStop.forEach(Disposable::dispose);
        clock.dispose();
        client.close();
        server.close();
    }

    /** Starts a leader-elected controller whose reconcile runs {@code beforeWrite}, then patches the ConfigMap. */
    private void startController(Runnable beforeWrite) {
        Controller controller = Controller.builder(informer).name("fenced")
                .leaderElection(TestElectors.leader(new InMemoryLeases().client(), "fenced", "a", clock))
                .reconciler(request -> Mono.fromRunnable(beforeWrite)
                        .then(maps.patch(request.name(), PatchType.MERGE,
                                "{\"metadata\":{\"annotations\":{\"written\":\"yes\"}}}"))
                        .doOnError(failures::add)
                        .thenReturn(Result.done()))
                .build();
        toStop.add(controller.start());
        toStop.add(informer.start());
    }

    private V1ConfigMap stored(String name) {
        return server.state().find(ResourceType.of(V1ConfigMap.class), "default", name).orElseThrow();
    }

    private Map<String, String> annotations() {
        Map<String, String> annotations = stored("cm").getMetadata().getAnnotations();
        return annotations == null ? Map.of() : annotations;
    }

    private static void await(BooleanSupplier condition) {
        StepVerifier.create(Convergence.until(condition, Duration.ofSeconds(20), Schedulers.parallel())).verifyComplete();
    }

    @Test
    void aReconcileWhoseTermPassedItsRenewDeadlineCannotWriteEvenBeforeTheElectionsTimersRun() {
        server.state().create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name("cm"))
                .data(Map.of("k", "v")));

        // the "pause": 60 s pass on the election's clock (renew deadline 10 s) between the start of the reconcile
        // and its write, and no timer of the election runs in between
        startController(() -> clock.jump(Duration.ofSeconds(60)));

        await(() -> !failures.isEmpty());
        assertThat(failures.get(0)).isInstanceOf(FencedWriteException.class)
                .hasMessageContaining("PATCH /api/v1/namespaces/default/configmaps/cm")
                .hasMessageContaining("the term of Lease");
        assertThat(server.requests()).as("no write of the paused replica reached the server")
                .noneMatch(RequestInfo.method("PATCH"));
        assertThat(annotations()).doesNotContainKey("written");
    }

    /** The same controller without the pause: proves the test above fails for the fence, not for the write. */
    @Test
    void aReconcileWithinItsTermWrites() {
        server.state().create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name("cm"))
                .data(Map.of("k", "v")));

        startController(() -> { });

        await(() -> annotations().containsKey("written"));
        assertThat(annotations()).containsEntry("written", "yes");
        assertThat(failures).isEmpty();
    }

    /** A scheduler on a thread of its own whose clock a test can move forward without running any task. */
    private static final class JumpingClock implements Scheduler {

        private final Scheduler delegate = Schedulers.newSingle("election");
        private final AtomicLong offsetMillis = new AtomicLong();

        void jump(Duration by) {
            offsetMillis.addAndGet(by.toMillis());
        }

        @Override
        public long now(TimeUnit unit) {
            return delegate.now(unit) + unit.convert(offsetMillis.get(), TimeUnit.MILLISECONDS);
        }

        @Override
        public Disposable schedule(Runnable task) {
            return delegate.schedule(task);
        }

        @Override
        public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
            return delegate.schedule(task, delay, unit);
        }

        @Override
        public Worker createWorker() {
            return delegate.createWorker();
        }

        @Override
        public void dispose() {
            delegate.dispose();
        }
    }
}
