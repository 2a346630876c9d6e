package io.reactiveinformer.controller;

import static io.reactiveinformer.controller.TestObjects.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ReplicaSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventPredicateTest {

    private final V1ReplicaSet v1 = withVersion(replicaSet("a", "r", 1, Map.of("app", "web")), "10");
    private final V1ReplicaSet sameAgain = withVersion(replicaSet("a", "r", 1, Map.of("app", "web")), "10");
    private final V1ReplicaSet relabelled = withVersion(replicaSet("a", "r", 1, Map.of("app", "db")), "11");
    private final V1ReplicaSet respecced = withVersion(replicaSet("a", "r", 2, Map.of("app", "web")), "12");

    private static V1ReplicaSet withVersion(V1ReplicaSet rs, String resourceVersion) {
        rs.getMetadata().setResourceVersion(resourceVersion);
        return rs;
    }

    @Test
    void commonChangePredicates() {
        assertThat(EventPredicate.<V1ReplicaSet>generationChanged().update(v1, respecced)).isTrue();
        assertThat(EventPredicate.<V1ReplicaSet>generationChanged().update(v1, relabelled)).isFalse();
        assertThat(EventPredicate.<V1ReplicaSet>labelsChanged().update(v1, relabelled)).isTrue();
        assertThat(EventPredicate.<V1ReplicaSet>labelsChanged().update(v1, respecced)).isFalse();
        assertThat(EventPredicate.<V1ReplicaSet>resourceVersionChanged().update(v1, sameAgain)).as("a resync").isFalse();
        assertThat(EventPredicate.<V1ReplicaSet>resourceVersionChanged().update(v1, relabelled)).isTrue();

        V1ReplicaSet annotated = withVersion(replicaSet("a", "r", 1, Map.of("app", "web")), "13");
        annotated.getMetadata().setAnnotations(Map.of("note", "x"));
        V1ReplicaSet emptyAnnotations = withVersion(replicaSet("a", "r", 1, Map.of("app", "web")), "14");
        emptyAnnotations.getMetadata().setAnnotations(Map.of());
        assertThat(EventPredicate.<V1ReplicaSet>annotationsChanged().update(v1, annotated)).isTrue();
        assertThat(EventPredicate.<V1ReplicaSet>annotationsChanged().update(v1, emptyAnnotations))
                .as("none and empty are the same").isFalse();
    }

    @Test
    void changePredicatesPassAddsAndDeletes() {
        EventPredicate<V1ReplicaSet> p = EventPredicate.generationChanged();
        assertThat(p.add(v1)).isTrue();
        assertThat(p.delete(v1)).isTrue();
    }

    @Test
    void andOrCombineEachKind() {
        EventPredicate<V1ReplicaSet> spec = EventPredicate.generationChanged();
        EventPredicate<V1ReplicaSet> labels = EventPredicate.labelsChanged();
        assertThat(spec.or(labels).update(v1, relabelled)).isTrue();
        assertThat(spec.or(labels).update(v1, sameAgain)).isFalse();
        assertThat(spec.and(labels).update(v1, relabelled)).isFalse();

        EventPredicate<V1ReplicaSet> noDeletes = EventPredicate.of(o -> true, (o, n) -> true, o -> false);
        assertThat(spec.and(noDeletes).delete(v1)).isFalse();
        assertThat(spec.or(noDeletes).delete(v1)).isTrue();
        assertThat(spec.and(noDeletes).add(v1)).isTrue();
    }

    @Test
    void notFlipsUpdatesOnlyAndKeepsAddsAndDeletes() {
        EventPredicate<V1ReplicaSet> notSpec = EventPredicate.not(EventPredicate.generationChanged());
        assertThat(notSpec.update(v1, relabelled)).isTrue();
        assertThat(notSpec.update(v1, respecced)).isFalse();
        assertThat(notSpec.add(v1)).isTrue();
        assertThat(notSpec.delete(v1)).isTrue();

        EventPredicate<V1ReplicaSet> onlyAdds = EventPredicate.of(o -> true, (o, n) -> false, o -> false);
        assertThat(onlyAdds.negate().delete(v1)).isFalse();
        assertThat(onlyAdds.negate().update(v1, sameAgain)).isTrue();
    }

    @Test
    void aPredicateForAnyObjectAppliesToASpecificKind() {
        EventPredicate<io.kubernetes.client.common.KubernetesObject> any = (o, n) -> true;
        assertThat(EventPredicate.<V1ReplicaSet>generationChanged().or(any).update(v1, sameAgain)).isTrue();
        assertThat(EventPredicate.<V1ReplicaSet>always().update(v1, sameAgain)).isTrue();
    }
}
