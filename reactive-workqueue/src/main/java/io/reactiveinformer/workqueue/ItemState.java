package io.reactiveinformer.workqueue;

/**
 * Everything the queue knows about one item, guarded by the queue's lock. An item has a state only
 * while it is dirty, processing or delayed; client-go's three sets become three fields of one entry of
 * {@link ItemStates}, so each operation costs one hash lookup.
 */
final class ItemState<T> {

    final T item;

    /** Needs processing: it is queued, or it will be queued when its processing is done. */
    boolean dirty;

    /** Handed out and not yet done. */
    boolean processing;

    /** The priority of the pending add (the highest asked for); kept after hand-out for retries. */
    int priority;

    /** Its live entry in the ready queue, or null. */
    ReadyQueue.Entry<T> ready;

    /** Its live entry among the delayed items, or null. */
    DelayedItems.Entry<T> delayed;

    /** When it entered the ready queue, or when its processing began; only kept when metrics are on. */
    long sinceNanos;

    ItemState(T item) {
        this.item = item;
    }
}
