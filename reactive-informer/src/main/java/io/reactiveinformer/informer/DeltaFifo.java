package io.reactiveinformer.informer;

import io.reactiveinformer.cache.ConcurrentIndexer;
import io.reactiveinformer.cache.Indexer;
import io.reactiveinformer.cache.ObjectKeys;
import io.kubernetes.client.common.KubernetesObject;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Scannable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.concurrent.Queues;

/**
 * The keyed queue between the reflector and the cache (client-go's {@code DeltaFIFO}), as a
 * reactive sink: producers push changes, one consumer drains {@link FifoEntry entries} as a
 * {@link Flux} with backpressure.
 *
 * <p><b>Coalescing.</b> A key is pending at most once however many deltas it has, and keys are
 * delivered in the order in which they first became pending. A key's pending deltas coalesce:
 * consecutive updates collapse to the newest (behind an {@code ADDED} that starts the run, which is
 * kept), an update drops a pending {@code SYNC}, two trailing deletions collapse to the newer, and a
 * delete/recreate/delete collapses to one deletion, so a key
 * holds at most five deltas and the FIFO's
 * memory is bounded by the number of distinct keys, however slow the consumer. A deletion of a key
 * neither pending nor cached is dropped.
 *
 * <p><b>Relists.</b> {@link #replace} enqueues one {@link FifoEntry.Replace} that supersedes every
 * pending delta and any earlier pending relist (a relist is newer than all of them); coalescing
 * starts afresh behind it. Its consumer swaps the cache in one step (see {@link ConcurrentIndexer#replaceAll}).
 * Deltas superseded this way were never applied, so handlers see nothing of keys that only they
 * mentioned; keys the cache holds but the relist lacks become deletions with unknown final state.
 * {@link #hasSynced()} turns true once the first relist has been delivered (client-go also counts a
 * FIFO whose first change was not a relist as synced).
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
 * operations into the keyed state, then emits as many entries as the subscriber has requested; no
 * lock is held and no thread waits while the subscriber runs. After about a millisecond of work it
 * schedules itself again instead of going on, so it shares the scheduler's threads fairly with other
 * tasks. With {@link Schedulers#immediate()} (the default of the short constructors) the drain runs
 * on the producer's thread, as a synchronous queue for tests. Because
 * {@code onNext} runs inside the drain loop, checks against the cache (unknown deletions,
 * resync) never interleave with the consumer applying an entry, <em>provided the subscriber
 * applies each entry to the cache before its {@code onNext} returns</em> (e.g. {@code
 * entries().map(apply)}); {@link #hasSynced()} relies on the same contract. Operations pushed
 * while the subscriber has no demand are coalesced and wait.
 *
 * <p>One subscriber only: a second one receives an {@link IllegalStateException}. Cancelling
 * discards what is pending and ends the FIFO; {@link #close()} completes the stream once everything
 * pushed before it is delivered. A {@code request(n)} with {@code n <= 0} ends the FIFO like a
 * cancellation and signals an {@link IllegalArgumentException} (Reactive Streams rule 3.9), from the
 * drain loop, so it never overlaps an {@code onNext}; Reactor's own operators only log such a request,
 * but here it can only be a bug in the consumer, which would otherwise wait forever for entries.
 *
 * <p><b>Structure.</b> The keyed state and its rules are {@link KeyedDeltaQueue} (single-threaded, no
 * Reactor); this class is the concurrency shell around it: the multi-producer operation queue, the
 * work-in-progress drain loop and the one subscription, a single state machine whose fields
 * ({@code wip}, {@code requested}, {@code cancelled}, {@code done}, {@code badRequest}) are read
 * together in every pass, which is why they stay in one class.
 *
 * @param <T> the object type
 */
final class DeltaFifo<T extends KubernetesObject> {

    private sealed interface Op<T> {
    }

    private record KeyOp<T>(String key, Delta<T> delta) implements Op<T> {
    }

    private record ReplaceOp<T>(Map<String, T> items, String resourceVersion) implements Op<T> {
    }

    private record ResyncOp<T>() implements Op<T> {
    }

    private record BookmarkOp<T>(String resourceVersion) implements Op<T> {
    }

    private record CloseOp<T>() implements Op<T> {
    }

    /** How long one run of the drain loop may deliver before it yields the scheduler's thread. */
    private static final long SLICE_NANOS = 1_000_000;

    private final UnaryOperator<T> transform;
    private final Scheduler drainScheduler;
    private final Consumer<RuntimeException> onUnkeyable;
    private final Runnable betweenEntries;
    private final Runnable drainLoop = this::drainLoop;
    private final Queue<Op<T>> ops = Queues.<Op<T>>unboundedMultiproducer().get();
    private final Entries entries = new Entries();
    private final StoreVersion storeVersion = new StoreVersion();

    private volatile int wip;
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<DeltaFifo> WIP =
            AtomicIntegerFieldUpdater.newUpdater(DeltaFifo.class, "wip");

    private volatile long requested;
    @SuppressWarnings("rawtypes")
    private static final AtomicLongFieldUpdater<DeltaFifo> REQUESTED =
            AtomicLongFieldUpdater.newUpdater(DeltaFifo.class, "requested");

    private volatile int subscribed;
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<DeltaFifo> SUBSCRIBED =
            AtomicIntegerFieldUpdater.newUpdater(DeltaFifo.class, "subscribed");

    /** Set before the subscriber's {@code onSubscribe}, so that a failing {@code onNext} can name it. */
    private volatile EntrySubscription subscription;
    private volatile CoreSubscriber<? super FifoEntry<T>> actual;
    private volatile boolean cancelled;
    private volatile boolean synced;
    /** A rule 3.9 violation waiting for the drain loop to signal it. */
    private volatile Throwable badRequest;
    /** Entries waiting for demand, as of the drain loop's last pass (for {@link Scannable.Attr#BUFFERED}). */
    private volatile int buffered;
    /** The subscriber received {@code onComplete} or {@code onError}; written by the drain loop only. */
    private volatile boolean done;

    // Confined to the thread running the drain loop (handed over through WIP).
    private final KeyedDeltaQueue<T> queue;
    private boolean populated;
    private boolean closed;

    /**
     * A FIFO without transform.
     *
     * @param knownObjects the cache its entries are applied to: consulted to drop deletions of
     *                     unknown keys and to enumerate a resync
     */
    public DeltaFifo(Indexer<T> knownObjects) {
        this(knownObjects, UnaryOperator.identity());
    }

    /**
     * @param knownObjects the cache its entries are applied to
     * @param transform    applied once to every pushed object, on the producer's thread, before it is
     *                     queued (e.g. to drop {@code metadata.managedFields}); it may return the same
     *                     instance modified or a new one, but must keep the key
     */
    public DeltaFifo(Indexer<T> knownObjects, UnaryOperator<T> transform) {
        this(knownObjects, transform, Schedulers.immediate(), e -> { }, () -> { });
    }

    /**
     * @param knownObjects   the cache its entries are applied to
     * @param transform      as above; it must not throw (wrap user code so that a failure returns the
     *                       object unchanged)
     * @param drainScheduler runs the drain loop, and so the consumer
     * @param onUnkeyable    told of a pushed object that has no name (it is dropped: it cannot be keyed)
     * @param betweenEntries run by the drain loop whenever no entry is being delivered: before each entry,
     *                       and on each pass, also one {@link #wake()} asked for; it must not throw
     */
    public DeltaFifo(Indexer<T> knownObjects, UnaryOperator<T> transform, Scheduler drainScheduler,
                     Consumer<RuntimeException> onUnkeyable, Runnable betweenEntries) {
        this.queue = new KeyedDeltaQueue<>(Objects.requireNonNull(knownObjects, "knownObjects"));
        this.transform = Objects.requireNonNull(transform, "transform");
        this.drainScheduler = Objects.requireNonNull(drainScheduler, "drainScheduler");
        this.onUnkeyable = Objects.requireNonNull(onUnkeyable, "onUnkeyable");
        this.betweenEntries = Objects.requireNonNull(betweenEntries, "betweenEntries");
    }

    /** Queues the creation of {@code object} (a watch {@code ADDED}). */
    public void add(T object) {
        push(DeltaType.ADDED, object);
    }

    /** Queues a change of {@code object} (a watch {@code MODIFIED}). */
    public void update(T object) {
        push(DeltaType.UPDATED, object);
    }

    /** Queues the deletion of {@code object}, its final state (a watch {@code DELETED}). */
    public void delete(T object) {
        push(DeltaType.DELETED, object);
    }

    private void push(DeltaType type, T object) {
        T transformed = transform.apply(object);
        String key = keyOf(transformed);
        if (key != null) {
            ops.offer(new KeyOp<>(key, Delta.of(type, transformed)));
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
     * Queues a relist: {@code items} is the complete content at {@code resourceVersion}. Supersedes
     * everything pending; of objects with the same key the last one counts.
     */
    public void replace(List<T> items, String resourceVersion) {
        Map<String, T> byKey = new LinkedHashMap<>(Math.max(16, items.size() * 4 / 3 + 1));
        for (T item : items) {
            T transformed = transform.apply(item);
            String key = keyOf(transformed);
            if (key != null) {
                byKey.put(key, transformed);
            }
        }
        ops.offer(new ReplaceOp<>(Collections.unmodifiableMap(byKey), resourceVersion));
        drain();
    }

    /**
     * Records that nothing changed up to {@code resourceVersion} (a watch bookmark): no entry, but the
     * {@link #storeVersion()} reaches it once what is pending before it is delivered.
     */
    public void bookmark(String resourceVersion) {
        ops.offer(new BookmarkOp<>(resourceVersion));
        drain();
    }

    /**
     * The resourceVersion that the entries delivered so far bring the cache to (per the consumer contract,
     * applied): every change pushed with a version up to it has been. Advanced by the drain loop after each
     * pass that delivered entries or found nothing pending.
     */
    StoreVersion storeVersion() {
        return storeVersion;
    }

    /** Queues a {@link DeltaType#SYNC} for every cached key that has nothing pending. */
    public void resync() {
        ops.offer(new ResyncOp<>());
        drain();
    }

    /**
     * Makes the drain loop run a pass (and so the {@code betweenEntries} hook) soon, on the drain
     * scheduler, even with nothing to deliver. Never runs it on the calling thread, unless the drain
     * scheduler is the immediate one.
     */
    void wake() {
        drain();
    }

    /** Completes the stream after everything pushed before this call; later pushes are ignored. */
    public void close() {
        ops.offer(new CloseOp<>());
        drain();
    }

    /**
     * Whether the initial list has been delivered to, and (per the consumer contract) applied by,
     * the subscriber. Readable from any thread.
     */
    public boolean hasSynced() {
        return synced;
    }

    /**
     * The entries, for the single consumer. Nothing is delivered before it requests; each
     * {@code request(n)} allows {@code n} more entries. Goes through {@code Flux.onAssembly} at each
     * call, so assembly hooks and {@code Hooks.onOperatorDebug()} see it.
     */
    public Flux<FifoEntry<T>> entries() {
        return entries.assembled();
    }

    private void drain() {
        if (WIP.getAndIncrement(this) == 0) {
            scheduleDrain();
        }
    }

    /**
     * A drain scheduler that rejects the loop (disposed, or saturated) ends the subscriber with the
     * rejection, from here: no drain loop runs meanwhile (this call holds the work-in-progress count), so
     * the signal cannot overlap an {@code onNext}. Whatever consumes the FIFO learns that it stopped
     * instead of waiting forever for entries.
     */
    private void scheduleDrain() {
        try {
            drainScheduler.schedule(drainLoop);
        } catch (RejectedExecutionException e) {
            CoreSubscriber<? super FifoEntry<T>> a = actual;
            cancelled = true;
            if (a != null && !done) {
                done = true;
                a.onError(Operators.onRejectedExecution(e, null, null, null, a.currentContext()));
            }
        }
    }

    private void drainLoop() {
        long sliceStart = System.nanoTime();
        int missed = 1;
        for (;;) {
            integrate();
            betweenEntries.run();
            CoreSubscriber<? super FifoEntry<T>> a = actual;
            Throwable invalidRequest = badRequest;
            if (invalidRequest != null && a != null && !cancelled && !done) {
                cancelled = true;
                done = true;
                queue.clear();
                buffered = 0;
                a.onError(invalidRequest);
            } else if (cancelled) {
                queue.clear();
            } else if (a != null && !done) {
                long r = requested;
                long e = 0;
                boolean yield = false;
                while (e != r && !cancelled) {
                    integrate();
                    if (e != 0) {
                        betweenEntries.run();
                    }
                    FifoEntry<T> entry = queue.poll(!synced);
                    if (entry == null) {
                        break;
                    }
                    if (!deliver(a, entry)) {
                        break;
                    }
                    e++;
                    if (System.nanoTime() - sliceStart >= SLICE_NANOS) {
                        yield = true;
                        break;
                    }
                }
                String reached = done ? null : queue.versionDelivered();
                if (reached != null) {
                    storeVersion.advance(reached);
                }
                if (closed && !cancelled && queue.isEmpty()) {
                    done = true;
                    a.onComplete();
                }
                if (e != 0) {
                    Operators.produced(REQUESTED, this, e);
                }
                if (yield && !done) {
                    buffered = queue.size();
                    // WIP stays above zero, so no producer schedules a second loop meanwhile.
                    scheduleDrain();
                    return;
                }
            }
            buffered = queue.size();
            missed = WIP.addAndGet(this, -missed);
            if (missed == 0) {
                return;
            }
        }
    }

    private void integrate() {
        Op<T> op;
        while ((op = ops.poll()) != null) {
            if (closed || cancelled) {
                continue;
            }
            if (op instanceof KeyOp<T> keyOp) {
                markPopulated(false);
                queue.add(keyOp.key(), keyOp.delta());
            } else if (op instanceof ReplaceOp<T> replaceOp) {
                markPopulated(true);
                queue.replace(replaceOp.items(), replaceOp.resourceVersion());
            } else if (op instanceof ResyncOp) {
                queue.resync();
            } else if (op instanceof BookmarkOp<T> bookmarkOp) {
                queue.bookmark(bookmarkOp.resourceVersion());
            } else {
                closed = true;
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

    private boolean deliver(CoreSubscriber<? super FifoEntry<T>> a, FifoEntry<T> entry) {
        try {
            a.onNext(entry);
        } catch (Throwable t) {
            Exceptions.throwIfFatal(t);
            cancelled = true;
            done = true;
            a.onError(Operators.onOperatorError(subscription, t, entry, a.currentContext()));
            return false;
        }
        if (entry instanceof FifoEntry.Replace<T> replace && replace.initial()) {
            synced = true;
        }
        return true;
    }

    private final class Entries extends Flux<FifoEntry<T>> {

        Flux<FifoEntry<T>> assembled() {
            return onAssembly(this);
        }

        @Override
        public void subscribe(CoreSubscriber<? super FifoEntry<T>> subscriber) {
            if (!SUBSCRIBED.compareAndSet(DeltaFifo.this, 0, 1)) {
                Operators.error(subscriber, new IllegalStateException(
                        "DeltaFifo allows a single subscriber (its consumer applies entries to the cache); it already has one"));
                return;
            }
            EntrySubscription s = new EntrySubscription(subscriber);
            subscription = s;
            subscriber.onSubscribe(s);
            actual = subscriber;
            drain();
        }
    }

    /**
     * The consumer's subscription. {@link Scannable}: {@code RUN_STYLE} is {@code ASYNC} because entries
     * arrive on the drain scheduler, or on a producer's thread with the immediate one, not on the
     * thread that requests; {@code BUFFERED} counts the entries waiting for demand (pending keys and a
     * pending relist) as of the drain loop's last pass, not operations still being integrated.
     */
    private final class EntrySubscription implements Subscription, Scannable {

        private final CoreSubscriber<? super FifoEntry<T>> subscriber;

        EntrySubscription(CoreSubscriber<? super FifoEntry<T>> subscriber) {
            this.subscriber = subscriber;
        }

        /** Rule 3.9: {@code n <= 0} ends the FIFO with an {@link IllegalArgumentException} (see the class Javadoc). */
        @Override
        public void request(long n) {
            if (n <= 0) {
                if (!cancelled) {
                    badRequest = Exceptions.nullOrNegativeRequestException(n);
                    drain();
                }
                return;
            }
            Operators.addCap(REQUESTED, DeltaFifo.this, n);
            drain();
        }

        @Override
        public void cancel() {
            cancelled = true;
            drain();
        }

        @Override
        public Object scanUnsafe(Attr key) {
            if (key == Attr.ACTUAL) {
                return subscriber;
            }
            if (key == Attr.CANCELLED) {
                return cancelled && !done;
            }
            if (key == Attr.TERMINATED) {
                return done;
            }
            if (key == Attr.REQUESTED_FROM_DOWNSTREAM) {
                return requested;
            }
            if (key == Attr.BUFFERED) {
                return buffered;
            }
            if (key == Attr.RUN_STYLE) {
                return Attr.RunStyle.ASYNC;
            }
            return null;
        }
    }
}
