package io.reactiveinformer.informer;

/**
 * How a subscriber's pending notifications are held while it is slower than the informer. Each
 * subscriber has its own buffer, drained by its own demand, so the policy of one never affects the
 * informer or the other subscribers.
 */
public enum BufferPolicy {

    /**
     * At most one pending entry per object key; a newer notification merges into the pending one so the
     * subscriber still sees every key's final state and every deletion. Memory is bounded by the
     * number of objects, however slow the subscriber. The default.
     *
     * <p>Merging: an update after a pending add is an add of the newer state; an update after a pending
     * update is one update from the older {@code oldObject} to the newest {@code newObject} (a resync
     * only if both were); a deletion after a pending add or update replaces it (so a subscriber may be
     * told of the deletion of an object whose creation it never saw); an add after a pending deletion is
     * kept behind it, so a deletion followed by a re-creation is delivered as a deletion then an add,
     * never as an update.
     */
    COALESCE,

    /** Every notification, in order, in a queue that grows without bound (client-go's behaviour). */
    UNBOUNDED,

    /**
     * Every notification, in order, up to {@link SubscriberOptions#capacity()} pending ones; one more
     * ends this subscriber with an overflow error ({@link reactor.core.Exceptions#isOverflow}) and
     * removes it from the informer. The initial state does not count: it is read from a snapshot of the
     * cache as the subscriber requests it, so the capacity bounds only the live changes it falls behind on.
     */
    BOUNDED
}
