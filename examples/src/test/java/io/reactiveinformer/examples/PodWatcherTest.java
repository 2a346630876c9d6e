package io.reactiveinformer.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.Churn;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.junit.SimulatedApiServerExtension;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The README's main job on a simulated cluster: it prints every notification, the sync and its summaries. */
@ExtendWith(SimulatedApiServerExtension.class)
class PodWatcherTest {

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, UTF_8);

    private String printed() {
        return printed.toString(UTF_8);
    }

    @Test
    void printsEveryPodTheSyncAndASummaryEveryTwoSeconds(SimulatedApiServer server) {
        new Churn(server.state(), ResourceType.of(V1Pod.class), "default", 42).run(50);
        int pods = server.state().list(V1Pod.class).size();
        VirtualTimeScheduler ticks = VirtualTimeScheduler.create();
        Disposable.Composite resources = Disposables.composite();
        try {
            SharedIndexInformer<V1Pod> informer = PodWatcher.watch(server.clientConfig(), false, out, ticks,
                    new PodWatcher.Counters(), resources);
            StepVerifier.create(Convergence.until(() -> printed().contains("synced: "), Duration.ofSeconds(20),
                    Schedulers.parallel())).verifyComplete();
            assertThat(printed()).contains("synced: " + pods + " pods cached");
            StepVerifier.create(Convergence.until(
                    () -> printed().lines().filter(l -> l.endsWith("(initial list)")).count() == pods,
                    Duration.ofSeconds(20), Schedulers.parallel())).verifyComplete();
            assertThat(printed()).doesNotContain("summary:");

            ticks.advanceTimeBy(Duration.ofSeconds(2));
            assertThat(printed().lines().filter(l -> l.startsWith("summary: ")))
                    .singleElement().asString()
                    .matches("summary: " + pods + " pods cached, [0-9.]+ events/s, [0-9]+ events, [1-9][0-9]* lists, "
                            + "0 restarts, rv " + informer.lastSyncResourceVersion());
        } finally {
            resources.dispose();
        }
    }

    @Test
    void quietPrintsNoNotifications(SimulatedApiServer server) {
        new Churn(server.state(), ResourceType.of(V1Pod.class), "default", 7).run(10);
        Disposable.Composite resources = Disposables.composite();
        try {
            PodWatcher.watch(server.clientConfig(), true, out, VirtualTimeScheduler.create(), new PodWatcher.Counters(),
                    resources);
            StepVerifier.create(Convergence.until(() -> printed().contains("synced: "), Duration.ofSeconds(20),
                    Schedulers.parallel())).verifyComplete();
            assertThat(printed().lines()).noneMatch(l -> l.startsWith("ADDED") || l.startsWith("UPDATED")
                    || l.startsWith("DELETED"));
        } finally {
            resources.dispose();
        }
    }
}
