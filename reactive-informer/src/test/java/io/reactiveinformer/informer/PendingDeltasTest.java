package io.reactiveinformer.informer;

import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class PendingDeltasTest {

    private final PendingDeltas<V1Pod> deltas = new PendingDeltas<>("");

    private static Delta<V1Pod> delta(DeltaType type, String rv) {
        return new Delta<>(type, pod("ns", "a", rv));
    }

    private List<String> described() {
        return deltas.toList().stream()
                .map(d -> d.type() + ":" + d.object().getMetadata().getResourceVersion())
                .toList();
    }

    @Test
    void consecutiveUpdatesCollapseToTheNewest() {
        deltas.append(delta(DeltaType.UPDATED, "1"));
        deltas.append(delta(DeltaType.UPDATED, "2"));
        deltas.append(delta(DeltaType.UPDATED, "3"));
        assertThat(described()).containsExactly("UPDATED:3");
    }

    @Test
    void addedIsKeptBeforeTheNewestUpdate() {
        deltas.append(delta(DeltaType.ADDED, "1"));
        deltas.append(delta(DeltaType.UPDATED, "2"));
        deltas.append(delta(DeltaType.UPDATED, "3"));
        assertThat(described()).containsExactly("ADDED:1", "UPDATED:3");
    }

    @Test
    void updateSupersedesPendingSync() {
        deltas.append(delta(DeltaType.SYNC, "1"));
        deltas.append(delta(DeltaType.UPDATED, "2"));
        assertThat(described()).containsExactly("UPDATED:2");
    }

    @Test
    void twoTrailingDeletionsCollapse() {
        deltas.append(delta(DeltaType.UPDATED, "1"));
        deltas.append(delta(DeltaType.DELETED, "2"));
        deltas.append(delta(DeltaType.DELETED, "3"));
        assertThat(described()).containsExactly("UPDATED:1", "DELETED:3");
    }

    @Test
    void deleteRecreateDeleteEndsDeleted() {
        deltas.append(delta(DeltaType.UPDATED, "1"));
        deltas.append(delta(DeltaType.DELETED, "1"));
        deltas.append(delta(DeltaType.ADDED, "2"));
        deltas.append(delta(DeltaType.UPDATED, "3"));
        assertThat(described()).containsExactly("UPDATED:1", "DELETED:1", "ADDED:2", "UPDATED:3");

        deltas.append(delta(DeltaType.DELETED, "3"));
        assertThat(described()).containsExactly("UPDATED:1", "DELETED:3");
    }

    @Property
    void neverHoldsMoreThanFiveDeltas(@ForAll("types") List<DeltaType> types) {
        PendingDeltas<V1Pod> pending = new PendingDeltas<>("");
        int rv = 0;
        for (DeltaType type : types) {
            pending.append(new Delta<>(type, pod("ns", "a", String.valueOf(rv++))));
            assertThat(pending.toList()).hasSizeBetween(1, 5);
        }
        if (!types.isEmpty()) {
            assertThat(pending.toList().get(pending.toList().size() - 1).object().getMetadata().getResourceVersion())
                    .as("the newest state is always kept")
                    .isEqualTo(String.valueOf(rv - 1));
        }
    }

    @Provide
    Arbitrary<List<DeltaType>> types() {
        return Arbitraries.of(DeltaType.ADDED, DeltaType.UPDATED, DeltaType.DELETED).list().ofMaxSize(40);
    }
}
