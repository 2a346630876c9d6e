package io.reactiveinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ItemStatesTest {

    /** A key whose hash code the test picks: few distinct codes make long probe runs that wrap around the table. */
    private record Key(int id, int hash) {

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.id == id;
        }
    }

    @Test
    void behavesAsAMapThroughGrowthShrinkingAndRemovalsInsideCollidingRuns() {
        for (int distinctHashes : new int[] {1, 3, 64, Integer.MAX_VALUE}) {
            Random random = new Random(distinctHashes);
            ItemStates<Key> table = new ItemStates<>();
            Map<Key, ItemState<Key>> model = new HashMap<>();
            for (int step = 0; step < 20_000; step++) {
                int id = random.nextInt(step < 10_000 ? 2_000 : 50);
                Key key = new Key(id, Integer.hashCode(id) % distinctHashes);
                ItemState<Key> held = model.get(key);
                assertThat(table.get(key)).as("step %d, %d hash codes: get %s", step, distinctHashes, key).isSameAs(held);
                if (held == null) {
                    ItemState<Key> state = new ItemState<>(key);
                    table.add(state);
                    model.put(key, state);
                } else if (random.nextBoolean()) {
                    table.remove(held);
                    model.remove(key);
                }
            }
            for (int id = 0; id < 2_000; id++) {
                Key key = new Key(id, Integer.hashCode(id) % distinctHashes);
                assertThat(table.get(key)).as("%d hash codes: finally %s", distinctHashes, key).isSameAs(model.get(key));
            }
        }
    }

    @Test
    void removingAStateItDoesNotHoldChangesNothing() {
        ItemStates<String> table = new ItemStates<>();
        ItemState<String> held = new ItemState<>("a");
        table.add(held);

        table.remove(new ItemState<>("a"));
        table.remove(new ItemState<>("b"));

        assertThat(table.get("a")).isSameAs(held);
        assertThat(table.get("b")).isNull();
    }
}
