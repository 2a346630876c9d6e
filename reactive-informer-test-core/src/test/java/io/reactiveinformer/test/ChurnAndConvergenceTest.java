package io.reactiveinformer.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class ChurnAndConvergenceTest {

    private static final ResourceType<V1ConfigMap> MAPS = ResourceType.of(V1ConfigMap.class);

    @Test
    void sameSeedSameChanges() {
        ClusterState a = ClusterState.builder().scheduler(VirtualTimeScheduler.create()).seed(1).build();
        ClusterState b = ClusterState.builder().scheduler(VirtualTimeScheduler.create()).seed(1).build();
        new Churn(a, MAPS, "ns", 9).run(200);
        new Churn(b, MAPS, "ns", 9).run(200);
        assertThat(a.trees(MAPS)).isEqualTo(b.trees(MAPS)).isNotEmpty();
        assertThat(a.resourceVersion()).isEqualTo(201);
        ClusterState c = ClusterState.builder().scheduler(VirtualTimeScheduler.create()).seed(1).build();
        new Churn(c, MAPS, "ns", 10).run(200);
        assertThat(c.trees(MAPS)).isNotEqualTo(a.trees(MAPS));
    }

    @Test
    void throughTheClientTheSameSeedMakesTheSameChangesAsStraightIntoTheState() {
        ClusterState direct = ClusterState.builder().scheduler(VirtualTimeScheduler.create()).build();
        new Churn(direct, MAPS, "ns", 9).run(200);
        try (SimulatedApiServer server = SimulatedApiServer.start(ClusterState.builder().build());
             KubernetesClient client = server.newClient()) {
            Churn churn = Churn.through(client, MAPS, "ns", 9);
            churn.run(100);
            StepVerifier.create(churn.every(Duration.ofMillis(1), 100)).expectNextCount(100).verifyComplete();

            assertThat(annotationsByName(server.state())).isEqualTo(annotationsByName(direct)).isNotEmpty();
            List<V1ConfigMap> listed = client.resource(V1ConfigMap.class).inNamespace("ns").withLabelSelector("churn=true")
                    .list(ListOptions.none()).block(Duration.ofSeconds(30)).items();
            assertThat(listed).extracting(m -> m.getMetadata().getName()).containsExactlyInAnyOrderElementsOf(churn.live());
        }
    }

    private static Map<String, String> annotationsByName(ClusterState state) {
        Map<String, String> byName = new TreeMap<>();
        for (ObjectNode tree : state.trees(MAPS)) {
            JsonNode step = tree.path("metadata").path("annotations").path("churn/step");
            byName.put(tree.path("metadata").path("name").asString(), step.isMissingNode() ? "" : step.asString());
        }
        return byName;
    }

    @Test
    void watchDrivenCacheConvergesInVirtualTime() {
        VirtualTimeScheduler clock = VirtualTimeScheduler.create();
        ClusterState state = ClusterState.builder().scheduler(clock).build();
        InMemoryListerWatcher<V1ConfigMap> lw = InMemoryListerWatcher.of(state, MAPS, "ns");
        Map<String, V1ConfigMap> cache = new ConcurrentHashMap<>();
        Disposable watch = lw.watch(WatchOptions.from("1")).subscribe(e -> {
            if (e.type() == WatchEvent.Type.DELETED) {
                cache.remove(e.object().getMetadata().getName());
            } else if (e.type() != WatchEvent.Type.BOOKMARK) {
                cache.put(e.object().getMetadata().getName(), e.object());
            }
        });
        Churn churn = new Churn(state, MAPS, "ns", 3);
        StepVerifier.withVirtualTime(() -> churn.every(Duration.ofSeconds(1), 100)
                        .then(Convergence.cacheMatchesList(cache::values, lw, Duration.ofSeconds(5), clock)),
                        () -> clock, Long.MAX_VALUE)
                .thenAwait(Duration.ofSeconds(101))
                .verifyComplete();
        assertThat(cache.keySet()).containsExactlyInAnyOrderElementsOf(churn.live());
        watch.dispose();
    }

    @Test
    void divergenceFailsAtTheDeadlineWithTheDifference() {
        VirtualTimeScheduler clock = VirtualTimeScheduler.create();
        ClusterState state = ClusterState.builder().scheduler(clock).build();
        new Churn(state, MAPS, "ns", 3).run(5);
        InMemoryListerWatcher<V1ConfigMap> lw = InMemoryListerWatcher.of(state, MAPS, "ns");
        StepVerifier.withVirtualTime(() -> Convergence.cacheMatchesList(java.util.List::<V1ConfigMap>of, lw,
                        Duration.ofSeconds(30), clock), () -> clock, Long.MAX_VALUE)
                .thenAwait(Duration.ofSeconds(30))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(AssertionError.class)
                        .hasMessageContaining("within PT30S").hasMessageContaining("missing ns/churn-"))
                .verify();
    }

    @Test
    void differenceNamesMissingExtraAndStale() {
        assertThat(Convergence.difference(Map.of("a", "1", "b", "2"), Map.of("a", "3", "c", "4")))
                .isEqualTo("stale a@1 (server 3); extra b@2; missing c@4;");
        assertThat(Convergence.difference(Map.of("a", "1"), Map.of("a", "1"))).isEmpty();
    }
}
