package io.reactiveinformer.workqueue;

import java.time.Duration;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * A work queue with client-go's semantics, delays, rate limiting and priorities, consumed as a
 * reactive stream.
 *
 * <h2>Semantics</h2>
 * <ul>
 *   <li><b>Stingy:</b> an item (compared with {@code equals}/{@code hashCode}; use object keys
 *       such as {@code namespace/name}) is pending at most once. Adding a pending item does
 *       nothing but possibly raise its priority.
 *   <li><b>Never concurrent:</b> an item handed out is "processing" until {@link #done}; an add in
 *       the meantime marks it pending again and it is queued when it is done, never handed to a
 *       second consumer while the first still has it. Adds are never lost.
 *   <li><b>Ordered:</b> higher {@link Priority} first, first-in first-out within a priority.
 *   <li><b>Delayed:</b> {@link #addAfter} parks an item until its ready time on the queue's
 *       scheduler (one timer for the earliest ready time). An item has one ready time: a later
 *       add keeps the earliest time and the highest priority; a plain add makes it ready now.
 *   <li><b>Unbounded, never blocking:</b> adds never block and never drop. Memory is bounded by
 *       the number of distinct items, since duplicates collapse.
 * </ul>
 *
 * <h2>Threading</h2>
 * All methods are thread-safe and non-blocking; none parks a thread. The queue holds an internal
 * monitor only for a few field updates and runs no consumer or rate limiter code under it (only
 * the {@link WorkQueueMetrics} recorder, which must be cheap and must not call back). An item
 * is handed to a waiting consumer (a {@link #get()} subscriber or a free {@link #process} worker)
 * on the thread that made it available: the thread calling {@code add}/{@code done}, or the
 * scheduler thread whose timer made a delayed item ready. Consumers that block or compute for long
 * must move off that thread ({@code publishOn}/{@code subscribeOn}).
 *
 * <h2>Shutdown</h2>
 * After {@link #shutDown()} adds are ignored and delayed items are dropped; items already queued
 * are still handed out, and items processing when shut down are re-queued if they were re-added
 * before. Consumers then see the end ({@link #get()} completes empty, {@link #process} completes).
 *
 * @param <T> the item type
 */
public interface WorkQueue<T> {

    /** A builder for a queue of items of type {@code T}. */
    static <T> WorkQueueBuilder<T> builder() {
        return new WorkQueueBuilder<>();
    }

    /** The queue's name, used to tag its metrics. */
    String name();

    /** Adds an item at {@link Priority#NORMAL}; see {@link #add(Object, Priority)}. */
    void add(T item);

    /**
     * Makes an item pending now. Ignored while shutting down. If it is already pending its priority
     * becomes the higher of the two; if it is delayed, it becomes ready now.
     */
    void add(T item, Priority priority);

    /** Adds an item at {@link Priority#NORMAL} after a delay; see {@link #addAfter(Object, Duration, Priority)}. */
    void addAfter(T item, Duration delay);

    /**
     * Makes an item pending once {@code delay} has passed on the queue's scheduler; a delay that is
     * zero or negative adds now. If the item is already pending, only the priority may rise; if it
     * is already delayed, it keeps the earlier ready time and the higher priority.
     */
    void addAfter(T item, Duration delay, Priority priority);

    /** Adds an item at {@link Priority#NORMAL} through the rate limiter. */
    void addRateLimited(T item);

    /**
     * Adds an item after the delay the rate limiter gives it ({@link RateLimiter#when}), which
     * also counts one more requeue of the item. Ignored while shutting down.
     */
    void addRateLimited(T item, Priority priority);

    /** Clears the item's rate-limiter history: call it when the item was processed successfully. */
    void forget(T item);

    /** How often the item went through {@link #addRateLimited} since it was last forgotten. */
    int numRequeues(T item);

    /**
     * Takes the next item, for consumers that drive the queue themselves. On request the returned
     * Mono waits (without a thread) for an item and emits it, or completes empty once the queue is
     * shut down and nothing more can be handed out. The item is then processing: the caller must
     * call {@link #done} for it. Each subscription takes one item; cancelling before it arrives
     * takes none.
     */
    Mono<T> get();

    /**
     * Marks an item handed out by this queue as finished; if it was added again while processing it
     * is queued again now. Unknown or not-processing items are ignored.
     */
    void done(T item);

    /**
     * Processes items with at most {@code concurrency} running at once; see
     * {@link #processWithOutcome}. A {@code worker} publisher that completes means success (the item
     * is forgotten by the rate limiter); an error requeues it with rate limiting. Its values are
     * ignored.
     */
    Mono<Void> process(int concurrency, Function<? super T, ? extends Publisher<?>> worker);

    /**
     * Processes items with at most {@code concurrency} running at once, the worker deciding what
     * happens to each item afterwards.
     *
     * <p><b>Backpressure:</b> an item is taken from the queue only when a worker is free: the
     * subscription keeps one demand parked in the queue per free worker, so items wait in the queue
     * (where they collapse, and where priorities and metrics see them) rather than in a buffer. A
     * given item is never processed by two workers at once, even across several {@code process}
     * subscriptions on the same queue.
     *
     * <p><b>Threading:</b> {@code worker} is called on the thread that makes the item available
     * (see the class documentation) or on the thread on which the previous work of that worker slot
     * terminated; the returned Mono runs wherever it chooses. It must not block that thread: use
     * {@code subscribeOn(Schedulers.boundedElastic())} for blocking work.
     *
     * <p><b>After the work:</b> when the Mono terminates the item is settled and then
     * {@link #done}: empty or {@link Outcome#forget()} forgets it; {@link Outcome#requeue()}
     * requeues it rate-limited; {@link Outcome#requeueAfter} forgets it and adds it after the delay;
     * an error (or a throwing {@code worker}) is logged and requeues it rate-limited. Requeues keep
     * the priority it was handed out with. A Mono that never terminates holds its worker slot: add
     * a {@code timeout} where work may hang.
     *
     * <p><b>Lifecycle:</b> nothing happens until subscription. The returned Mono completes when the
     * queue is shut down and every item this subscription took is done. Cancelling it stops taking
     * items and cancels running work; those items are put back into the queue (even while shutting
     * down), since they were not finished. The subscriber's {@code Context} is visible to the work.
     *
     * @param concurrency the most items in processing at once for this subscription, at least 1
     * @param worker starts the work for an item; never called twice at once for equal items
     */
    Mono<Void> processWithOutcome(int concurrency, Function<? super T, ? extends Mono<Outcome>> worker);

    /** The number of items ready to be handed out now (not counting delayed or processing ones). */
    int size();

    /** Stops accepting adds; see the class documentation. Idempotent. */
    void shutDown();

    /** True once {@link #shutDown} was called. */
    boolean isShuttingDown();

    /**
     * Shuts down on subscription and completes once every queued item has been handed out and every
     * item in processing is done (client-go only waits for the items in processing). Needs
     * consumers to run meanwhile. Bound it with {@code timeout} if workers may hang.
     */
    Mono<Void> shutDownWithDrain();
}
