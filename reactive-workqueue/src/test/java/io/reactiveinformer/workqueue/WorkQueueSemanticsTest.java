package io.reactiveinformer.workqueue;

import static io.reactiveinformer.workqueue.Queues.tryGet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** client-go's queue cases ({@code util/workqueue/queue_test.go}), written from the semantics. */
class WorkQueueSemanticsTest {

    private final WorkQueue<String> queue = Queues.virtual(VirtualTimeScheduler.create());

    @Test
    void handsOutInAddOrder() {
        queue.add("a");
        queue.add("b");
        queue.add("c");

        assertThat(queue.size()).isEqualTo(3);
        assertThat(List.of(tryGet(queue), tryGet(queue), tryGet(queue))).containsExactly("a", "b", "c");
        assertThat(tryGet(queue)).isNull();
    }

    @Test
    void duplicatesCollapseWhilePending() {
        queue.add("a");
        queue.add("b");
        queue.add("a");
        queue.add("a");

        assertThat(queue.size()).isEqualTo(2);
        assertThat(tryGet(queue)).isEqualTo("a");
        assertThat(tryGet(queue)).isEqualTo("b");
        assertThat(tryGet(queue)).isNull();
    }

    @Test
    void addWhileProcessingIsQueuedOnlyAfterDone() {
        queue.add("a");
        assertThat(tryGet(queue)).isEqualTo("a");

        queue.add("a");
        queue.add("a");

        // never handed to a second consumer while the first one has it
        assertThat(queue.size()).isZero();
        assertThat(tryGet(queue)).isNull();

        queue.done("a");
        assertThat(queue.size()).isEqualTo(1);
        assertThat(tryGet(queue)).isEqualTo("a");
        queue.done("a");
        assertThat(tryGet(queue)).isNull();
    }

    @Test
    void reinsertDuringProcessingIsHandedOutAgain() {
        queue.add("foo");
        String item = tryGet(queue);
        queue.add(item);
        queue.done(item);

        assertThat(tryGet(queue)).isEqualTo("foo");
        assertThat(queue.size()).isZero();
    }

    @Test
    void doneWithoutAddIsNotRequeued() {
        queue.add("a");
        queue.done(tryGet(queue));

        assertThat(queue.size()).isZero();
    }

    @Test
    void doneForUnknownOrPendingItemIsIgnored() {
        queue.done("never-added");
        queue.add("a");
        queue.done("a");

        assertThat(queue.size()).isEqualTo(1);
        assertThat(tryGet(queue)).isEqualTo("a");
    }

    @Test
    void differentItemsAreProcessedConcurrently() {
        queue.add("a");
        queue.add("b");

        assertThat(tryGet(queue)).isEqualTo("a");
        assertThat(tryGet(queue)).isEqualTo("b");
    }

    @Test
    void getWaitsForAnAddWithoutAThread() {
        StepVerifier.create(queue.get())
                .expectSubscription()
                .then(() -> assertThat(queue.size()).isZero())
                .then(() -> queue.add("a"))
                .expectNext("a")
                .verifyComplete();
    }

    @Test
    void waitingGettersAreServedInSubscriptionOrder() {
        List<String> first = new ArrayList<>();
        List<String> second = new ArrayList<>();
        queue.get().subscribe(first::add);
        queue.get().subscribe(second::add);

        queue.add("a");
        queue.add("b");

        assertThat(first).containsExactly("a");
        assertThat(second).containsExactly("b");
    }

    @Test
    void cancelledGetTakesNothing() {
        Disposable get = queue.get().subscribe();
        get.dispose();

        queue.add("a");

        assertThat(queue.size()).isEqualTo(1);
        assertThat(tryGet(queue)).isEqualTo("a");
    }

    @Test
    void getWithoutRequestTakesNothing() {
        StepVerifier.create(queue.get(), 0)
                .expectSubscription()
                .then(() -> queue.add("a"))
                .then(() -> assertThat(queue.size()).isEqualTo(1))
                .thenRequest(1)
                .expectNext("a")
                .verifyComplete();
    }

    @Test
    void itemsAreComparedByEquality() {
        queue.add(new String("key"));
        queue.add(new String("key"));

        assertThat(queue.size()).isEqualTo(1);
    }

    @Test
    void nullsAreRejected() {
        assertThatThrownBy(() -> queue.add(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> queue.addAfter("a", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> queue.add("a", null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void processRejectsNonPositiveConcurrency() {
        assertThatThrownBy(() -> queue.process(0, item -> reactor.core.publisher.Mono.empty()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void builderNeedsANameForMetrics() {
        assertThatThrownBy(() -> WorkQueue.<String>builder()
                        .metrics((name, gauges) -> NoopWorkQueueMetrics.INSTANCE)
                        .build())
                .isInstanceOf(IllegalStateException.class);
        assertThat(WorkQueue.<String>builder().build().name()).isEqualTo("workqueue");
        assertThat(WorkQueue.<String>builder().name("pods").build().name()).isEqualTo("pods");
    }
}
