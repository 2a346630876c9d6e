package io.reactiveinformer.informer;

import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.cache.ConcurrentIndexer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The FIFO's keyed state driven directly, without a drain loop or a subscriber. */
class KeyedDeltaQueueTest {

    private final ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
    private final KeyedDeltaQueue<V1Pod> queue = new KeyedDeltaQueue<>(cache);

    private List<FifoEntry<V1Pod>> drain() {
        List<FifoEntry<V1Pod>> out = new ArrayList<>();
        for (FifoEntry<V1Pod> entry; (entry = queue.poll(false)) != null; ) {
            out.add(entry);
        }
        return out;
    }

    private static String describe(FifoEntry<V1Pod> entry) {
        if (entry instanceof FifoEntry.Deltas<V1Pod> deltas) {
            StringBuilder b = new StringBuilder(deltas.key()).append(':');
            deltas.deltas().forEach(d -> b.append(' ').append(d.type()).append('@')
                    .append(d.object().getMetadata().getResourceVersion()));
            return b.toString();
        }
        FifoEntry.Replace<V1Pod> replace = (FifoEntry.Replace<V1Pod>) entry;
        return "replace@" + replace.resourceVersion() + " " + replace.items().keySet() + (replace.initial() ? " initial" : "");
    }

    @Test
    void keysLeaveInTheOrderTheyFirstBecamePendingWithTheirDeltasCoalesced() {
        queue.add("ns/a", new Delta<>(DeltaType.ADDED, pod("ns", "a", "1")));
        queue.add("ns/b", new Delta<>(DeltaType.ADDED, pod("ns", "b", "1")));
        queue.add("ns/a", new Delta<>(DeltaType.UPDATED, pod("ns", "a", "2")));
        queue.add("ns/a", new Delta<>(DeltaType.UPDATED, pod("ns", "a", "3")));

        assertThat(queue.size()).isEqualTo(2);
        assertThat(drain()).extracting(KeyedDeltaQueueTest::describe)
                .containsExactly("ns/a: ADDED@1 UPDATED@3", "ns/b: ADDED@1");
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void aDeletionIsJudgedAgainstThePendingRelistNotTheCache() {
        cache.put(pod("ns", "cached", "1"));
        queue.add("ns/unknown", new Delta<>(DeltaType.DELETED, pod("ns", "unknown", "1")));
        assertThat(queue.isEmpty()).as("a deletion of a key neither pending nor cached is dropped").isTrue();

        queue.replace(Map.of("ns/listed", pod("ns", "listed", "5")), "5", 1);
        queue.add("ns/cached", new Delta<>(DeltaType.DELETED, pod("ns", "cached", "6")));
        queue.add("ns/listed", new Delta<>(DeltaType.DELETED, pod("ns", "listed", "7")));

        assertThat(queue.poll(true)).extracting(KeyedDeltaQueueTest::describe).isEqualTo("replace@5 [ns/listed] initial");
        assertThat(drain()).extracting(KeyedDeltaQueueTest::describe).containsExactly("ns/listed: DELETED@7");
    }

    @Test
    void aRelistSupersedesEverythingPendingAndAResyncWaitsForIt() {
        cache.put(pod("ns", "a", "1"));
        cache.put(pod("ns", "b", "1"));
        queue.add("ns/a", new Delta<>(DeltaType.UPDATED, pod("ns", "a", "2")));
        queue.resync();
        assertThat(drain()).extracting(KeyedDeltaQueueTest::describe)
                .as("a resync queues only cached keys with nothing pending")
                .containsExactly("ns/a: UPDATED@2", "ns/b: SYNC@1");

        queue.add("ns/a", new Delta<>(DeltaType.UPDATED, pod("ns", "a", "3")));
        queue.replace(Map.of("ns/c", pod("ns", "c", "9")), "9", 1);
        queue.resync();
        assertThat(queue.size()).isEqualTo(1);
        assertThat(drain()).extracting(KeyedDeltaQueueTest::describe).containsExactly("replace@9 [ns/c]");
    }

    @Test
    void clearDropsPendingKeysAndThePendingRelist() {
        queue.add("ns/a", new Delta<>(DeltaType.ADDED, pod("ns", "a", "1")));
        queue.replace(Map.of(), "2", 1);
        queue.add("ns/b", new Delta<>(DeltaType.ADDED, pod("ns", "b", "3")));
        queue.clear();
        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.poll(false)).isNull();
    }

    @Test
    void theVersionDeliveredStopsBeforeTheFirstKeyStillPendingThoughAnEarlierKeyCoalescedNewerChanges() {
        assertThat(queue.versionDelivered()).isEmpty();
        queue.replace(Map.of(), "4", 1);
        assertThat(queue.versionDelivered()).as("the relist is not delivered yet").isNull();
        drain();
        assertThat(queue.versionDelivered()).isEqualTo("4");

        queue.add("ns/a", new Delta<>(DeltaType.ADDED, pod("ns", "a", "5")));
        queue.add("ns/b", new Delta<>(DeltaType.ADDED, pod("ns", "b", "7")));
        queue.add("ns/a", new Delta<>(DeltaType.UPDATED, pod("ns", "a", "8")));
        assertThat(queue.versionDelivered()).isEqualTo("4");

        assertThat(describe(queue.poll(false))).isEqualTo("ns/a: ADDED@5 UPDATED@8");
        assertThat(queue.versionDelivered()).as("a@8 is delivered, b@7 is not").isEqualTo("5");
        queue.poll(false);
        assertThat(queue.versionDelivered()).isEqualTo("8");

        queue.bookmark("12");
        assertThat(queue.versionDelivered()).isEqualTo("12");
        queue.add("ns/gone", new Delta<>(DeltaType.DELETED, pod("ns", "gone", "13")));
        assertThat(queue.versionDelivered()).as("a dropped deletion still counts as received").isEqualTo("13");
    }
}
