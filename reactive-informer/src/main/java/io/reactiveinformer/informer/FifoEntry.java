package io.reactiveinformer.informer;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the {@link DeltaFifo} hands its consumer: either the coalesced deltas of one key, or a whole
 * relist to apply in one step.
 *
 * @param <T> the object type
 */
sealed interface FifoEntry<T> {

    /**
     * The pending deltas of one key, oldest first, coalesced as {@link DeltaFifo} describes.
     *
     * @param key    the object key
     * @param deltas at least one delta, at most five
     */
    record Deltas<T>(String key, List<Delta<T>> deltas) implements FifoEntry<T> {

        public Deltas {
            Objects.requireNonNull(key, "key");
            deltas = List.copyOf(deltas);
        }

        /** The most recent delta. */
        public Delta<T> newest() {
            return deltas.get(deltas.size() - 1);
        }
    }

    /**
     * The complete content from a relist. It supersedes every delta that was pending when the relist
     * arrived. Applying it replaces the cache in one step; keys the cache held but {@code items}
     * lacks are deletions with unknown final state.
     *
     * @param items           the listed objects by key, in list order (read-only)
     * @param resourceVersion the list's resourceVersion
     * @param initial         whether this is the relist that makes the FIFO synced: its objects are
     *                        the informer's initial list
     * @param selection       the number of the shard selection the list was made with
     *                        ({@link io.reactiveinformer.watch.ReflectorEvent.Listed#selection()})
     */
    record Replace<T>(Map<String, T> items, String resourceVersion, boolean initial, long selection)
            implements FifoEntry<T> {

        public Replace {
            Objects.requireNonNull(items, "items");
        }
    }
}
