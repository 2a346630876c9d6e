package io.reactiveinformer.informer;

import io.reactiveinformer.cache.ConcurrentIndexer;
import io.reactiveinformer.cache.Indexer;
import io.reactiveinformer.cache.ObjectKeys;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;
import reactor.util.concurrent.Queues;
import reactor.util.context.Context;

/**
 * The keyed queue between the reflector and the cache (client-go's {@code DeltaFIFO}): producers push
 * changes, and a drain loop hands {@link FifoEntry entries} one at a time to the one {@link EntryConsumer}
 * given to {@link #start} (client-go's {@code Pop(process)}, kube-rs's {@code Writer::apply_watcher_event}).
 *
 * <p><b>Coalescing.</b> A key is pending at most once however many deltas it has, and keys are
 * delivered in the order in which they first became pending. A key's pending deltas coalesce:
 * consecutive updates collapse to the newest (behind an {@code ADDED} that starts the run, which is
 * kept), an update drops a pending {@code SYNC}, two trailing deletions collapse to the newer, and a
 * delete/recreate/delete collapses to one deletion, so a key holds at most five deltas and the FIFO's
 * memory is bounded by the number of distinct keys, however slow the consumer. A deletion of a key
 * neither pending nor cached is dropped.
 *
 * <p><b>Relists.</b> {@link #replace} enqueues one {@link FifoEntry.Replace} that supersedes every
 * pending delta and any earlier pending relist (a relist is newer than all of them); coalescing
 * starts afresh behind it. Its consumer swaps the cache in one step (see {@link ConcurrentIndexer#replaceAll}).
 * Deltas superseded this way were never applied, so handlers see nothing of keys that only they
 * mentioned; keys the cache holds but the relist lacks become deletions with unknown final state.
 * The first relist delivered is marked {@link FifoEntry.Replace#initial() initial}, unless the FIFO's
 * first change was not a relist (client-go then counts the FIFO as synced).
 *
 * <p><b>Relists that reuse the cache.</b> {@link #cachedIfUnchanged} is the reflector's interner: it answers
 * the cached instance for a listed object of the same key and resourceVersion (the same state on the server),
 * so that a relist's list holds the cache's objects and the copies of what changed, not a second copy of the
 * store. {@link #replace} does not transform such an object again: it was transformed when it was first pushed.
 *
 * <p><b>Resync.</b> {@link #resync()} enqueues a {@link DeltaType#SYNC} delta for every cached key
 * with nothing pending (a pending delta is newer); it does nothing while a relist is pending.
 *
 * <p><b>Threading.</b> Producer methods may be called from any thread, concurrently; they never
 * block and never run the consumer: they apply the transform, offer an operation to a lock-free
 * multi-producer queue and, if the drain loop is idle, schedule it on the drain {@link Scheduler}.
 * (A producer is typically a network event loop: the consumer's work, such as a relist's cache swap
 * and fan-out, must not run there.) The drain loop is serialized by a work-in-progress counter (as
 * in reactor-core's operators) and runs on the drain scheduler only: it integrates the queued
 * operations into the keyed state before each entry (so that what is still queued keeps coalescing),
 * then calls the consumer; no lock is held and no thread waits while the consumer runs. After about a
 * millisecond of work it schedules itself again instead of going on, so it shares the scheduler's
 * threads fairly with other tasks. Because the consumer runs inside the drain loop, checks against the
 * cache (unknown deletions, resync) never interleave with it, <em>provided it applies each entry to
 * the cache before it returns</em>.
 *
 * <p><b>Failure.</b> A consumer that throws, or a drain scheduler that rejects the loop (disposed, or
 * saturated), stops the FIFO: what is pending is discarded, later pushes are ignored, and the consumer's
 * {@link EntryConsumer#failed} is told the cause once, from the drain loop or from the call that was
 * refused the schedule (which then holds the work-in-progress count), so never while an entry is being
 * applied; a FIFO that failed before {@link #start} (a {@link #wake()} may schedule the loop earlier) tells
 * its consumer from {@code start}.
 *
 * <p><b>Structure.</b> The keyed state and its rules are {@link KeyedDeltaQueue} (single-threaded, no
 * Reactor); this class is the concurrency shell around it: the multi-producer operation queue and the
 * work-in-progress drain loop.
 *
 * @param <T> the object type
 */
final class DeltaFifo<T extends KubernetesObject> {

    /** The FIFO's one consumer, called by its drain loop (one call at a time). */
    interface EntryConsumer<T> {

        /** Applies {@code entry} to the cache before it returns; throwing stops the FIFO. */
        void accept(FifoEntry<T> entry);

        /** The FIFO stopped for {@code cause}; no entry follows. Must not throw. */
        void failed(Throwable cause);
    }

    private sealed interface Op<T> {
    }

    private record KeyOp<T>(String key, Delta<T> delta) implements Op<T> {
    }

    private record ReplaceOp<T>(Map<String, T> items, String resourceVersion, long selection) implements Op<T> {
    }

    private record ResyncOp<T>() implements Op<T> {
    }

    private record BookmarkOp<T>(String resourceVersion) implements Op<T> {
    }

    /** How long one run of the drain loop may deliver before it yields the scheduler's thread. */
    private static final long SLICE_NANOS = 1_000_000;

    private final Indexer<T> knownObjects;
    private final UnaryOperator<T> transform;
    private final Scheduler drainScheduler;
    private final Consumer<RuntimeException> onUnkeyable;
    private final Runnable betweenEntries;
    private final Runnable drainLoop = this::drainLoop;
    private final Queue<Op<T>> ops = Queues.<Op<T>>unboundedMultiproducer().get();
    private final StoreVersion storeVersion = new StoreVersion();

    private volatile int wip;
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<DeltaFifo> WIP =
            AtomicIntegerFieldUpdater.newUpdater(DeltaFifo.class, "wip");

    private volatile EntryConsumer<T> consumer;
    /** Disposed or failed: pending entries are discarded and later pushes ignored. */
    private volatile boolean stopped;
    /** Why the FIFO failed, kept for a consumer that starts after it did (a wake() may schedule before start). */
    private volatile Throwable failure;
    private final AtomicBoolean failureTold = new AtomicBoolean();

    // Confined to the thread running the drain loop (or refused its schedule), handed over through WIP.
    private final KeyedDeltaQueue<T> queue;
    private boolean populated;
    private boolean synced;

    /**
     * @param knownObjects   the cache its entries are applied to: consulted to drop deletions of unknown
     *                       keys and to enumerate a resync
     * @param transform      applied once to every pushed object, on the producer's thread, before it is
     *                       queued (e.g. to drop {@code metadata.managedFields}); it may return the same
     *                       instance modified or a new one, but must keep the key, and must not throw
     *                       (wrap user code so that a failure returns the object unchanged)
     * @param drainScheduler runs the drain loop, and so the consumer
     * @param onUnkeyable    told of a pushed object that has no name (it is dropped: it cannot be keyed)
     * @param betweenEntries run by the drain loop whenever no entry is being delivered: before each entry,
     *                       and on each pass, also one {@link #wake()} asked for; it must not throw
     */
    DeltaFifo(Indexer<T> knownObjects, UnaryOperator<T> transform, Scheduler drainScheduler,
              Consumer<RuntimeException> onUnkeyable, Runnable betweenEntries) {
        this.knownObjects = Objects.requireNonNull(knownObjects, "knownObjects");
        this.queue = new KeyedDeltaQueue<>(knownObjects);
        this.transform = Objects.requireNonNull(transform, "transform");
        this.drainScheduler = Objects.requireNonNull(drainScheduler, "drainScheduler");
        this.onUnkeyable = Objects.requireNonNull(onUnkeyable, "onUnkeyable");
        this.betweenEntries = Objects.requireNonNull(betweenEntries, "betweenEntries");
    }

    /**
     * Starts handing entries to {@code consumer}, the FIFO's only one (call once). Changes pushed before
     * wait, coalescing. Disposing the handle stops the FIFO: what is pending is discarded, later pushes are
     * ignored, and an entry being applied is the last one.
     */
    Disposable start(EntryConsumer<T> consumer) {
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        tellFailure();
        drain();
        return new Disposable() {
            @Override
            public void dispose() {
                stopped = true;
                drain();
            }

            @Override
            public boolean isDisposed() {
                return stopped;
            }
        };
    }

    /** Queues the creation of {@code object} (a watch {@code ADDED}). */
    void add(T object) {
        push(DeltaType.ADDED, object);
    }

    /** Queues a change of {@code object} (a watch {@code MODIFIED}). */
    void update(T object) {
        push(DeltaType.UPDATED, object);
    }

    /** Queues the deletion of {@code object}, its final state (a watch {@code DELETED}). */
    void delete(T object) {
        push(DeltaType.DELETED, object);
    }

    private void push(DeltaType type, T object) {
        T transformed = transform.apply(object);
        String key = keyOf(transformed);
        if (key != null) {
            ops.offer(new KeyOp<>(key, new Delta<>(type, transformed)));
            drain();
        }
    }

    private String keyOf(T object) {
        try {
            return ObjectKeys.keyOf(object);
        } catch (IllegalArgumentException e) {
            onUnkeyable.accept(e);
            return null;
        }
    }

    /**
     * The cached object of {@code listed}'s key when it has {@code listed}'s resourceVersion (so the same state,
     * and transformed already), else {@code listed}. For the reflector, on the threads that decode a list: a
     * lock-free read of the cache, never blocking.
     */
    T cachedIfUnchanged(T listed) {
        String key = plainKey(listed);
        T cached = key == null ? null : knownObjects.getByKey(key).orElse(null);
        return cached != null && DeltaApplier.sameVersion(cached, listed) ? cached : listed;
    }

    /** Whether {@code item} is the very instance cached under its key: it went through the transform then. */
    private boolean isCached(T item) {
        String key = plainKey(item);
        return key != null && knownObjects.getByKey(key).orElse(null) == item;
    }

    /** The key of an object not transformed yet (the transform keeps it), or null when it has no name. */
    private static String plainKey(KubernetesObject object) {
        V1ObjectMeta metadata = object.getMetadata();
        return metadata == null || metadata.getName() == null ? null
                : ObjectKeys.key(metadata.getNamespace(), metadata.getName());
    }

    /**
     * Queues a relist: {@code items} is the complete content at {@code resourceVersion}, listed with shard
     * selection number {@code selection}. Supersedes everything pending; of objects with the same key the
     * last one counts. An item that is the cached instance itself (see {@link #cachedIfUnchanged}) is queued as
     * it is; the others are transformed.
     */
    void replace(List<T> items, String resourceVersion, long selection) {
        Map<String, T> byKey = new LinkedHashMap<>(Math.max(16, items.size() * 4 / 3 + 1));
        for (T item : items) {
            T transformed = isCached(item) ? item : transform.apply(item);
            String key = keyOf(transformed);
            if (key != null) {
                byKey.put(key, transformed);
            }
        }
        ops.offer(new ReplaceOp<>(Collections.unmodifiableMap(byKey), resourceVersion, selection));
        drain();
    }

    /**
     * Records that nothing changed up to {@code resourceVersion} (a watch bookmark): no entry, but the
     * {@link #storeVersion()} reaches it once what is pending before it is delivered.
     */
    void bookmark(String resourceVersion) {
        ops.offer(new BookmarkOp<>(resourceVersion));
        drain();
    }

    /**
     * The resourceVersion that the entries delivered so far bring the cache to (per the consumer contract,
     * applied): every change pushed with a version up to it has been. Advanced by the drain loop after each
     * entry, and on each pass that finds nothing pending.
     */
    StoreVersion storeVersion() {
        return storeVersion;
    }

    /** Queues a {@link DeltaType#SYNC} for every cached key that has nothing pending. */
    void resync() {
        ops.offer(new ResyncOp<>());
        drain();
    }

    /**
     * Makes the drain loop run a pass (and so the {@code betweenEntries} hook) soon, on the drain
     * scheduler, even with nothing to deliver. Never runs it on the calling thread.
     */
    void wake() {
        drain();
    }

    private void drain() {
        if (WIP.getAndIncrement(this) == 0) {
            scheduleDrain();
        }
    }

    /**
     * A drain scheduler that rejects the loop stops the FIFO and tells the consumer, from here: no drain
     * loop runs meanwhile (this call holds the work-in-progress count), so the call cannot overlap an
     * entry. Whatever consumes the FIFO learns that it stopped instead of waiting forever for entries.
     */
    private void scheduleDrain() {
        try {
            drainScheduler.schedule(drainLoop);
        } catch (RejectedExecutionException e) {
            fail(Operators.onRejectedExecution(e, null, null, null, Context.empty()));
        }
    }

    private void fail(Throwable cause) {
        stopped = true;
        queue.clear();
        if (failure == null) {
            failure = cause;
        }
        tellFailure();
    }

    /** Tells the consumer why the FIFO failed, once, as soon as both exist. */
    private void tellFailure() {
        EntryConsumer<T> c = consumer;
        Throwable cause = failure;
        if (c != null && cause != null && failureTold.compareAndSet(false, true)) {
            c.failed(cause);
        }
    }

    private void drainLoop() {
        long sliceStart = System.nanoTime();
        int missed = 1;
        for (;;) {
            integrate();
            betweenEntries.run();
            EntryConsumer<T> c = consumer;
            if (stopped) {
                queue.clear();
            } else if (c != null) {
                boolean first = true;
                for (;;) {
                    if (!first) {
                        integrate();
                        betweenEntries.run();
                    }
                    first = false;
                    FifoEntry<T> entry = stopped ? null : queue.poll(!synced);
                    if (entry == null || !deliver(c, entry)) {
                        break;
                    }
                    if (System.nanoTime() - sliceStart >= SLICE_NANOS) {
                        // WIP stays above zero, so no producer schedules a second loop meanwhile.
                        scheduleDrain();
                        return;
                    }
                }
                advanceStoreVersion();
            }
            missed = WIP.addAndGet(this, -missed);
            if (missed == 0) {
                return;
            }
        }
    }

    private void advanceStoreVersion() {
        String reached = stopped ? null : queue.versionDelivered();
        if (reached != null) {
            storeVersion.advance(reached);
        }
    }

    private void integrate() {
        Op<T> op;
        while ((op = ops.poll()) != null) {
            if (stopped) {
                continue;
            }
            if (op instanceof KeyOp<T> keyOp) {
                markPopulated(false);
                queue.add(keyOp.key(), keyOp.delta());
            } else if (op instanceof ReplaceOp<T> replaceOp) {
                markPopulated(true);
                queue.replace(replaceOp.items(), replaceOp.resourceVersion(), replaceOp.selection());
            } else if (op instanceof ResyncOp) {
                queue.resync();
            } else {
                queue.bookmark(((BookmarkOp<T>) op).resourceVersion());
            }
        }
    }

    private void markPopulated(boolean byReplace) {
        if (!populated) {
            populated = true;
            if (!byReplace) {
                synced = true;
            }
        }
    }

    private boolean deliver(EntryConsumer<T> c, FifoEntry<T> entry) {
        try {
            c.accept(entry);
        } catch (Throwable t) {
            Exceptions.throwIfFatal(t);
            fail(t);
            return false;
        }
        if (entry instanceof FifoEntry.Replace<T> replace && replace.initial()) {
            synced = true;
        }
        advanceStoreVersion();
        return true;
    }
}
