package io.reactiveinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.test.Churn;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.junit.SimulatedApiServerExtension;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.scheduler.Schedulers;

/**
 * The replicas example on a simulated cluster, as its {@code main} runs without {@code $KUBECONFIG}: three
 * replicas, leader-elected or sharded (each caching its share), bring every ConfigMap's checksum annotation up
 * to date, and keep it so as the ConfigMaps change.
 */
@ExtendWith(SimulatedApiServerExtension.class)
class ReplicatedChecksumsTest {

    private static final Duration WITHIN = Duration.ofSeconds(60);

    @ParameterizedTest(name = "sharded: {0}")
    @ValueSource(booleans = {false, true})
    void threeReplicasKeepEveryChecksumUpToDate(boolean sharded, SimulatedApiServer server) {
        Churn churn = new Churn(server.state(), ResourceType.of(V1ConfigMap.class), "default", 7);
        churn.run(40);
        Disposable.Composite replicas = Disposables.composite();
        try {
            for (int i = 0; i < 3; i++) {
                replicas.add(ReplicatedChecksums.replica(server.newClient(), "default", "replica-" + i, sharded));
            }
            awaitChecksums(server);
            churn.run(40);
            awaitChecksums(server);
        } finally {
            replicas.dispose();
        }
    }

    private static void awaitChecksums(SimulatedApiServer server) {
        Convergence.until(() -> stale(server).isEmpty(), WITHIN, Schedulers.parallel()).block(WITHIN.plusSeconds(5));
        assertThat(stale(server)).isEmpty();
    }

    /** The ConfigMaps whose annotation is not the checksum of their data and labels. */
    private static List<String> stale(SimulatedApiServer server) {
        return server.state().list(V1ConfigMap.class).stream()
                .filter(map -> map.getMetadata().getAnnotations() == null || !Objects.equals(
                        map.getMetadata().getAnnotations().get(ReplicatedChecksums.ANNOTATION),
                        ReplicatedChecksums.checksum(map)))
                .map(map -> map.getMetadata().getName())
                .toList();
    }
}
