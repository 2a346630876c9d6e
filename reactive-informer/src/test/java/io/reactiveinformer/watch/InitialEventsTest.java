package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.added;
import static io.reactiveinformer.watch.Fixtures.bookmark;
import static io.reactiveinformer.watch.Fixtures.cm;
import static io.reactiveinformer.watch.Fixtures.deleted;
import static io.reactiveinformer.watch.Fixtures.initialEventsEnd;
import static io.reactiveinformer.watch.Fixtures.modified;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class InitialEventsTest {

    @Test
    void gathersTheStateUpToTheEndBookmarkInArrivalOrder() {
        InitialEvents<V1ConfigMap> initial = new InitialEvents<>(UnaryOperator.identity());

        assertThat(initial.offer(added(cm("b", "1")))).isFalse();
        assertThat(initial.offer(added(cm("a", "2")))).isFalse();
        assertThat(initial.offer(modified(cm("b", "3")))).isFalse();
        assertThat(initial.offer(added(cm("c", "4")))).isFalse();
        assertThat(initial.offer(deleted(cm("c", "5")))).isFalse();
        assertThat(initial.offer(bookmark("5"))).as("a plain bookmark does not end them").isFalse();
        assertThat(initial.isComplete()).isFalse();

        assertThat(initial.offer(initialEventsEnd("6"))).isTrue();
        assertThat(initial.resourceVersion).isEqualTo("6");
        assertThat(initial.drain()).extracting(o -> o.getMetadata().getName() + "@" + o.getMetadata().getResourceVersion())
                .containsExactly("b@3", "a@2");
        assertThat(initial.isComplete()).as("released once drained").isTrue();
    }
}
