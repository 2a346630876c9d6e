package io.reactiveinformer.workqueue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The one queue implementation: client-go's dirty/processing sets, per-priority FIFOs
 * ({@link ReadyQueue}) and parked consumer demands, with the delayed items and their single timer
 * ({@link DelayTimer}) and the metrics bookkeeping ({@link ItemMetrics}), all guarded by one private
 * monitor ({@code lock}) that is only held for a few field updates. This class is the state machine
 * that moves an item between those under the monitor; the parts it uses keep no lock of their own. No consumer or
 * rate limiter runs under the monitor: hand-offs decided under it are carried out after it is released
 * ({@link Demand#deliverAll}), and so is arming the timer. The one piece of user-supplied code that
 * does run under it is the {@link WorkQueueMetrics} recorder ({@code added}, {@code queued},
 * {@code worked}), whose contract says it must be cheap and must not call back into the queue.
 *
 * <p>Longer than the project's ~400 lines per class on purpose, as Caffeine's
 * {@code BoundedLocalCache} is: every method left here reads and writes the same guarded fields
 * (an item's dirty/processing/ready state, the counters the drain depends on, the parked demands)
 * in one critical section, and splitting them further would spread one state machine and its
 * invariants over classes that share a lock they do not own.
 */
final class DefaultWorkQueue<T> implements WorkQueue<T>, WorkQueueMetrics.Gauges {

    static final Logger LOG = LoggerFactory.getLogger(WorkQueue.class);

    private final String name;
    private final Scheduler scheduler;
    private final RateLimiter<T> rateLimiter;
    /** Null only while the metrics provider registers this queue's gauges. */
    private final ItemMetrics<T> metrics;

    /**
     * Guards the fields below, the parts' state ({@link DelayTimer}, {@link ItemMetrics}) and the items'
     * {@link ItemState}s. Private, not this queue's monitor: the queue is handed to users, and their
     * {@code synchronized (queue)} must not contend with (or deadlock against) the queue's own.
     */
    private final Object lock = new Object();

    // guarded by lock
    private final ItemStates<T> states = new ItemStates<>();
    private final ReadyQueue<T> ready = new ReadyQueue<>();
    private final DelayTimer<T> delays;
    private final ArrayDeque<Demand<T>> waiters = new ArrayDeque<>();
    private int processing;
    private int dirtyWhileProcessing;
    private boolean shuttingDown;

    private final Sinks.Empty<Void> drainedAndDone = Sinks.empty();
    /**
     * Shut down, drained and nothing processing: final once true. Set under the lock, read by
     * {@link #deliver} after it to complete {@link #drainedAndDone}.
     */
    private volatile boolean finished;

    DefaultWorkQueue(String name, Scheduler scheduler, RateLimiter<T> rateLimiter, WorkQueueMetrics.Provider provider) {
        this.name = name;
        this.scheduler = scheduler;
        this.rateLimiter = rateLimiter;
        this.delays = new DelayTimer<>(lock, scheduler, this::due);
        this.metrics = new ItemMetrics<>(provider.register(name, this), scheduler);
    }

    @Override
    public String name() {
        return name;
    }

    // ---------------------------------------------------------------- adds

    @Override
    public void add(T item) {
        add(item, Priority.NORMAL);
    }

    @Override
    public void add(T item, Priority priority) {
        Objects.requireNonNull(item, "item");
        Objects.requireNonNull(priority, "priority");
        Demand<T> out;
        synchronized (lock) {
            if (shuttingDown) {
                return;
            }
            markDirtyLocked(stateLocked(item), priority.value(), true);
            out = matchLocked(null);
        }
        deliver(out);
    }

    @Override
    public void addAfter(T item, Duration delay) {
        addAfter(item, delay, Priority.NORMAL);
    }

    @Override
    public void addAfter(T item, Duration delay, Priority priority) {
        Objects.requireNonNull(item, "item");
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(priority, "priority");
        if (delay.isZero() || delay.isNegative()) {
            add(item, priority);
            return;
        }
        long generation;
        long at;
        synchronized (lock) {
            if (shuttingDown) {
                return;
            }
            ItemState<T> state = stateLocked(item);
            if (state.dirty) {
                raiseLocked(state, priority.value());
                return;
            }
            generation = delays.delayLocked(state, priority.value(), delay);
            at = delays.armedAtLocked();
        }
        if (generation != 0) {
            delays.arm(generation, at);
        }
    }

    @Override
    public void addRateLimited(T item) {
        addRateLimited(item, Priority.NORMAL);
    }

    @Override
    public void addRateLimited(T item, Priority priority) {
        Objects.requireNonNull(item, "item");
        if (isShuttingDown()) {
            return;
        }
        Duration delay = rateLimiter.when(item, scheduler.now(TimeUnit.NANOSECONDS));
        metrics.retried();
        addAfter(item, delay, priority);
    }

    @Override
    public void forget(T item) {
        rateLimiter.forget(item);
    }

    @Override
    public int numRequeues(T item) {
        return rateLimiter.numRequeues(item);
    }

    private ItemState<T> stateLocked(T item) {
        ItemState<T> state = states.get(item);
        if (state == null) {
            state = new ItemState<>(item);
            states.add(state);
        }
        return state;
    }

    /** Makes an item pending now: queued, or queued when its processing is done. */
    private void markDirtyLocked(ItemState<T> state, int priority, boolean countAdd) {
        if (state.dirty) {
            raiseLocked(state, priority);
            return;
        }
        if (state.delayed != null) {
            // ready now: the earliest time wins; the heap entry goes stale
            priority = Math.max(priority, state.priority);
            state.delayed = null;
        }
        state.dirty = true;
        state.priority = priority;
        if (countAdd) {
            metrics.addedLocked();
        }
        if (state.processing) {
            dirtyWhileProcessing++;
        } else {
            enqueueLocked(state);
        }
    }

    private void raiseLocked(ItemState<T> state, int priority) {
        if (priority > state.priority) {
            state.priority = priority;
            if (state.ready != null) {
                ready.requeue(state);
            }
        }
    }

    private void enqueueLocked(ItemState<T> state) {
        metrics.queuedLocked(state);
        ready.offer(state);
    }

    // ---------------------------------------------------------------- delayed items

    /** The delay timer's task, on a scheduler thread: the items whose ready time came become pending. */
    private void due(long generation) {
        Demand<T> out;
        long next;
        long at;
        synchronized (lock) {
            delays.firedLocked(generation);
            if (shuttingDown) {
                return;
            }
            long now = scheduler.now(TimeUnit.NANOSECONDS);
            ItemState<T> state;
            while ((state = delays.pollReadyLocked(now)) != null) {
                markDirtyLocked(state, state.priority, true);
            }
            next = delays.rearmLocked();
            at = delays.armedAtLocked();
            out = matchLocked(null);
        }
        deliver(out);
        if (next != 0) {
            delays.arm(next, at);
        }
    }

    // ---------------------------------------------------------------- hand-out

    @Override
    public Mono<T> get() {
        return GetMono.assemble(this);
    }

    @Override
    public Mono<Void> process(int concurrency, Function<? super T, ? extends Publisher<?>> worker) {
        return newProcess(concurrency, worker, false);
    }

    @Override
    public Mono<Void> processWithOutcome(int concurrency, Function<? super T, ? extends Mono<Outcome>> worker) {
        return newProcess(concurrency, worker, true);
    }

    private Mono<Void> newProcess(int concurrency, Function<? super T, ? extends Publisher<?>> worker, boolean outcomes) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1: " + concurrency);
        }
        Objects.requireNonNull(worker, "worker");
        return ProcessMono.assemble(this, concurrency, worker, outcomes);
    }

    /** Parks a demand; it is served at once if an item is ready or the queue is drained. */
    void request(Demand<T> demand) {
        Demand<T> out = null;
        T item = null;
        int priority = 0;
        synchronized (lock) {
            if (demand.isCancelled()) {
                return;
            }
            if (waiters.isEmpty() && ready.size() > 0) {
                // fast path: nobody is ahead of this demand and an item is ready
                if (!demand.claim()) {
                    return;
                }
                ItemState<T> state = takeLocked();
                item = state.item;
                priority = state.priority;
            } else {
                waiters.addLast(demand);
                out = matchLocked(null);
            }
        }
        if (item != null) {
            demand.handOver(item, priority, name);
        }
        deliver(out);
    }

    /** {@link #next}: the slot holds a new item. */
    static final int TAKEN = 0;
    /** {@link #next}: the slot is parked; an item or the end is delivered to it later. */
    static final int PARKED = 1;
    /** {@link #next}: the slot is claimed for the end: the queue is shut down and drained. */
    static final int DRAINED = 2;
    /** {@link #next}: the slot was cancelled; nothing was taken. */
    static final int CANCELLED = 3;

    /**
     * A process slot's step, under one lock: marks {@code finished} (if not null) done, then takes
     * the next ready item into the slot when no parked demand is ahead of it, or else parks the
     * slot. Returns {@link #TAKEN} (the slot's demand claimed, its {@code item} and
     * {@code priority} set), {@link #PARKED}, {@link #DRAINED} (the slot's demand claimed) or
     * {@link #CANCELLED}. Never delivers to the slot itself, so the caller's loop does not recurse;
     * other demands served meanwhile are delivered before it returns.
     */
    int next(ProcessSlot<T> slot, T finished) {
        Demand<T> out;
        int result;
        synchronized (lock) {
            if (finished != null) {
                ItemState<T> state = states.get(finished);
                if (state != null && state.processing) {
                    doneLocked(state);
                }
            }
            out = matchLocked(null);
            if (slot.isCancelled()) {
                result = CANCELLED;
            } else if (waiters.isEmpty() && ready.size() > 0) {
                if (slot.claim()) {
                    ItemState<T> state = takeLocked();
                    slot.item = state.item;
                    slot.priority = state.priority;
                    result = TAKEN;
                } else {
                    result = CANCELLED;
                }
            } else if (shuttingDown && ready.size() == 0 && dirtyWhileProcessing == 0) {
                result = slot.claim() ? DRAINED : CANCELLED;
            } else {
                waiters.addLast(slot);
                result = PARKED;
            }
        }
        deliver(out);
        return result;
    }

    /** Unparks a cancelled demand. */
    void unpark(Demand<T> demand) {
        synchronized (lock) {
            waiters.remove(demand);
        }
    }

    /**
     * Pairs parked demands with ready items, and ends them when nothing can come any more. The
     * claimed demands carry their hand-off and are chained, newest first, onto {@code out}: no
     * allocation, since a claimed demand belongs to the lock holder until it is delivered.
     */
    private Demand<T> matchLocked(Demand<T> out) {
        while (ready.size() > 0 && !waiters.isEmpty()) {
            Demand<T> demand = waiters.pollFirst();
            if (demand.claim()) {
                ItemState<T> state = takeLocked();
                out = demand.handOff(out, state.item, state.priority);
            }
        }
        if (shuttingDown && ready.size() == 0) {
            // nothing queued and nothing that done() could queue again: consumers may stop
            if (dirtyWhileProcessing == 0) {
                Demand<T> demand;
                while ((demand = waiters.pollFirst()) != null) {
                    if (demand.claim()) {
                        out = demand.handOff(out, null, 0);
                    }
                }
            }
            if (processing == 0) {
                finished = true;
            }
        }
        return out;
    }

    private ItemState<T> takeLocked() {
        ItemState<T> state = ready.poll();
        state.dirty = false;
        state.processing = true;
        processing++;
        metrics.handedOutLocked(state);
        return state;
    }

    /** Carries out the hand-offs chained by {@link #matchLocked}, then completes the drain once finished. */
    private void deliver(Demand<T> out) {
        Demand.deliverAll(out, name);
        if (finished) {
            drainedAndDone.tryEmitEmpty();
        }
    }

    // ---------------------------------------------------------------- done

    @Override
    public void done(T item) {
        Objects.requireNonNull(item, "item");
        Demand<T> out;
        synchronized (lock) {
            ItemState<T> state = states.get(item);
            if (state == null || !state.processing) {
                return;
            }
            doneLocked(state);
            out = matchLocked(null);
        }
        deliver(out);
    }

    /**
     * Gives back an item whose consumer went away before finishing it: it is queued again, even
     * while shutting down, since it was never processed.
     */
    void release(T item) {
        Demand<T> out;
        synchronized (lock) {
            ItemState<T> state = states.get(item);
            if (state == null || !state.processing) {
                return;
            }
            markDirtyLocked(state, state.priority, false);
            doneLocked(state);
            out = matchLocked(null);
        }
        deliver(out);
    }

    private void doneLocked(ItemState<T> state) {
        state.processing = false;
        processing--;
        metrics.doneLocked(state);
        if (state.dirty) {
            dirtyWhileProcessing--;
            enqueueLocked(state);
        } else if (state.delayed == null) {
            states.remove(state);
        }
    }

    // ---------------------------------------------------------------- shutdown

    @Override
    public void shutDown() {
        Demand<T> out;
        Disposable cancelled;
        synchronized (lock) {
            if (!shuttingDown) {
                shuttingDown = true;
                delays.clearLocked(state -> {
                    if (!state.dirty && !state.processing) {
                        states.remove(state);
                    }
                });
            }
            cancelled = delays.disarmLocked();
            out = matchLocked(null);
        }
        if (cancelled != null) {
            cancelled.dispose();
        }
        deliver(out);
    }

    @Override
    public Mono<Void> shutDownWithDrain() {
        return Mono.defer(() -> {
            shutDown();
            return drainedAndDone.asMono();
        });
    }

    @Override
    public boolean isShuttingDown() {
        synchronized (lock) {
            return shuttingDown;
        }
    }

    @Override
    public int size() {
        synchronized (lock) {
            return ready.size();
        }
    }

    // ---------------------------------------------------------------- gauges

    @Override
    public int depth() {
        return size();
    }

    @Override
    public double unfinishedWorkSeconds() {
        synchronized (lock) {
            return metrics == null ? 0 : metrics.unfinishedWorkSecondsLocked();
        }
    }

    @Override
    public double longestRunningProcessorSeconds() {
        synchronized (lock) {
            return metrics == null ? 0 : metrics.longestRunningProcessorSecondsLocked();
        }
    }

    @Override
    public String toString() {
        return "WorkQueue[" + name + "]";
    }
}
