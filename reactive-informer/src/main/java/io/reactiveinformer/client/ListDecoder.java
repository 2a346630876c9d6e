package io.reactiveinformer.client;

import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.client.ListItemScanner.RawItem;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A LIST response decoded in two steps that may run on different threads, whatever its encoding: {@link #feed}
 * finds each item's bytes, {@link #bind} turns a batch of them into objects, {@link #end} assembles the page.
 * {@link ParallelBinder} runs the binds on workers while the connection's thread feeds on. Implemented by
 * {@link ObjectListDecoder} (JSON) and {@link ProtobufListDecoder}.
 *
 * @param <T> the item type
 */
interface ListDecoder<T> {

    /** The raw items one buffer completed, numbered from {@code first} (for error messages). */
    record Batch(int first, List<RawItem> items) {

        boolean isEmpty() {
            return items.isEmpty();
        }

        /** The raw items' size. */
        long bytes() {
            long sum = 0;
            for (RawItem item : items) {
                sum += item.bytes().length;
            }
            return sum;
        }
    }

    /**
     * Feeds the next bytes and returns the items they completed, unbound. Call from one thread at a time, in
     * the order of the response.
     *
     * @throws DecodeException on malformed input
     */
    Batch feed(ByteBuffer bytes);

    /**
     * Binds a batch's items, in order. Thread-safe: batches may be bound concurrently.
     *
     * @throws DecodeException if an item is malformed or does not fit the type
     */
    List<T> bind(Batch batch);

    /**
     * Ends the input and returns the page of {@code items} (the bound batches, in feed order).
     *
     * @throws DecodeException if the input ended early, held no list, or is malformed outside the items
     */
    ObjectList<T> end(List<T> items);
}
