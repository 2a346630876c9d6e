package io.reactiveinformer.workqueue;

import static io.reactiveinformer.workqueue.Queues.tryGet;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

class PriorityTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final WorkQueue<String> queue = Queues.virtual(time);

    private List<String> drain() {
        List<String> items = new ArrayList<>();
        String item;
        while ((item = tryGet(queue)) != null) {
            items.add(item);
        }
        return items;
    }

    @Test
    void higherPriorityFirstAndFifoWithinAPriority() {
        queue.add("low1", Priority.LOW);
        queue.add("normal1");
        queue.add("high1", Priority.HIGH);
        queue.add("normal2", Priority.NORMAL);
        queue.add("low2", Priority.LOW);
        queue.add("high2", Priority.HIGH);
        queue.add("custom", Priority.of(7));

        assertThat(drain()).containsExactly("high1", "high2", "custom", "normal1", "normal2", "low1", "low2");
    }

    @Test
    void aReAddRaisesThePriorityButNeverLowersIt() {
        queue.add("a", Priority.LOW);
        queue.add("b");
        queue.add("c", Priority.HIGH);
        queue.add("a", Priority.HIGH);
        queue.add("c", Priority.LOW);

        assertThat(queue.size()).isEqualTo(3);
        assertThat(drain()).containsExactly("c", "a", "b");
    }

    @Test
    void manyRaisesLeaveNoDuplicates() {
        for (int i = 0; i < 100; i++) {
            queue.add("a", Priority.of(i));
            queue.add("b", Priority.of(i));
        }
        assertThat(queue.size()).isEqualTo(2);
        assertThat(drain()).containsExactly("a", "b");
    }

    @Test
    void aDelayedItemKeepsTheHighestPriorityAndTheEarliestTime() {
        queue.addAfter("a", Duration.ofMillis(10), Priority.LOW);
        queue.addAfter("a", Duration.ofMillis(50), Priority.HIGH);
        queue.add("b");

        time.advanceTimeBy(Duration.ofMillis(10));

        assertThat(drain()).containsExactly("a", "b");
    }

    @Test
    void aPlainAddOfADelayedItemKeepsItsHigherPriority() {
        queue.addAfter("a", Duration.ofMillis(10), Priority.HIGH);
        queue.add("b");
        queue.add("a", Priority.LOW);

        assertThat(drain()).containsExactly("a", "b");
    }

    @Test
    void anAddDuringProcessingIsQueuedWithItsPriorityAfterDone() {
        queue.add("a");
        assertThat(tryGet(queue)).isEqualTo("a");
        queue.add("a", Priority.HIGH);
        queue.add("b");

        queue.done("a");

        assertThat(drain()).containsExactly("a", "b");
    }

    @Test
    void delayedItemsEnterTheirPriority() {
        queue.add("normal");
        queue.addAfter("late-high", Duration.ofMillis(5), Priority.HIGH);
        queue.addAfter("late-low", Duration.ofMillis(5), Priority.LOW);

        time.advanceTimeBy(Duration.ofMillis(5));

        assertThat(drain()).containsExactly("late-high", "normal", "late-low");
    }
}
