package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.cache.Indexer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The keyed state of a {@link DeltaFifo}, without its concurrency: pending deltas per key in the order
 * keys first became pending, a pending relist that supersedes them, and the rules that judge a change
 * against the cache (a deletion of a key neither pending nor known is dropped; a resync queues only
 * cached keys with nothing pending). The coalescing of one key's deltas is {@link PendingDeltas}'.
 *
 * <p>Not thread-safe and free of Reactor: its one caller is the FIFO's drain loop, which owns it by
 * holding the work-in-progress counter, so it can be driven directly by single-threaded tests.
 *
 * @param <T> the object type
 */
final class KeyedDeltaQueue<T extends KubernetesObject> {

    private final Indexer<T> knownObjects;
    /** The pending keys' deltas; their order is {@code order}. */
    private final HashMap<String, PendingDeltas<T>> pending = new HashMap<>();
    /**
     * The pending keys in the order they first became pending. A queue beside the map rather than a
     * {@code LinkedHashMap}, so that taking the first key allocates no iterator: this runs once per entry.
     */
    private final ArrayDeque<String> order = new ArrayDeque<>();
    private Map<String, T> relistItems;
    private String relistVersion;
    private long relistSelection;
    /** The resourceVersion of the newest change received: a delta's object, a relist or a bookmark. */
    private String lastVersion = "";

    /** @param knownObjects the cache the entries are applied to, consulted for unknown deletions and resyncs */
    KeyedDeltaQueue(Indexer<T> knownObjects) {
        this.knownObjects = knownObjects;
    }

    /** Appends a change of {@code key}; a deletion of a key the cache will not hold is dropped. */
    void add(String key, Delta<T> delta) {
        String before = lastVersion;
        received(delta.object().getMetadata() == null ? null : delta.object().getMetadata().getResourceVersion());
        PendingDeltas<T> deltas = pending.get(key);
        if (deltas == null) {
            if (delta.type() == DeltaType.DELETED && !known(key)) {
                return;
            }
            deltas = new PendingDeltas<>(before);
            pending.put(key, deltas);
            order.offer(key);
        }
        deltas.append(delta);
    }

    /** The server vouched that nothing changed up to {@code resourceVersion}. */
    void bookmark(String resourceVersion) {
        received(resourceVersion);
    }

    private void received(String resourceVersion) {
        if (resourceVersion != null && !resourceVersion.isEmpty()) {
            lastVersion = resourceVersion;
        }
    }

    /** A relist: {@code items} by key at {@code resourceVersion}, newer than everything pending. */
    void replace(Map<String, T> items, String resourceVersion, long selection) {
        pending.clear();
        order.clear();
        relistItems = items;
        relistVersion = resourceVersion;
        relistSelection = selection;
        received(resourceVersion);
    }

    /** A {@link DeltaType#SYNC} for every cached key with nothing pending; nothing while a relist is pending. */
    void resync() {
        if (relistItems != null) {
            return;
        }
        for (String key : knownObjects.listKeys()) {
            if (!pending.containsKey(key)) {
                knownObjects.getByKey(key).ifPresent(object -> {
                    PendingDeltas<T> deltas = new PendingDeltas<>(lastVersion);
                    deltas.append(new Delta<>(DeltaType.SYNC, object));
                    pending.put(key, deltas);
                    order.offer(key);
                });
            }
        }
    }

    /**
     * The next entry, or {@code null}: a pending relist first (marked {@code initial} as asked), then the
     * key that became pending first with its coalesced deltas.
     */
    FifoEntry<T> poll(boolean initialRelist) {
        if (relistItems != null) {
            FifoEntry<T> relist = new FifoEntry.Replace<>(relistItems, relistVersion, initialRelist, relistSelection);
            relistItems = null;
            relistVersion = null;
            return relist;
        }
        String key = order.poll();
        if (key == null) {
            return null;
        }
        return new FifoEntry.Deltas<>(key, pending.remove(key).toList());
    }

    /**
     * The resourceVersion the cache has reached once every entry polled so far is applied, or {@code null}
     * while a relist is pending (the deltas it superseded were never applied, so the cache stays where it
     * was). Keys are polled in the order they first became pending, so every change received before the
     * first pending key was polled with an earlier key: the cache has reached what came before that key,
     * or everything received when nothing is pending.
     */
    String versionDelivered() {
        if (relistItems != null) {
            return null;
        }
        String first = order.peek();
        return first == null ? lastVersion : pending.get(first).versionBefore();
    }

    /** Entries waiting: pending keys, and a pending relist. */
    int size() {
        return pending.size() + (relistItems != null ? 1 : 0);
    }

    boolean isEmpty() {
        return relistItems == null && pending.isEmpty();
    }

    void clear() {
        pending.clear();
        order.clear();
        relistItems = null;
        relistVersion = null;
    }

    /** Whether the key exists in the state the cache will have once what is pending is applied. */
    private boolean known(String key) {
        return relistItems != null ? relistItems.containsKey(key) : knownObjects.containsKey(key);
    }
}
