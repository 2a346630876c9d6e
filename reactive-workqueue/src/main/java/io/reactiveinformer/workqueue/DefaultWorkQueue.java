package io.reactiveinformer.workqueue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The one queue implementation: client-go's dirty/processing sets, a delay heap with a single
 * timer, per-priority FIFOs and parked consumer demands, all guarded by one monitor that is only
 * held for a few field updates. No consumer or rate limiter runs under the monitor: hand-offs
 * decided under it are carried out after it is released. The one piece of user-supplied code that
 * does run under it is the {@link WorkQueueMetrics} recorder ({@code added}, {@code queued},
 * {@code worked}), whose contract says it must be cheap and must not call back into the queue.
 */
final class DefaultWorkQueue<T> implements WorkQueue<T>, WorkQueueMetrics.Gauges {

    static final Logger LOG = LoggerFactory.getLogger(WorkQueue.class);

    private final String name;
    private final Scheduler scheduler;
    private final RateLimiter<T> rateLimiter;
    private final WorkQueueMetrics metrics;
    /** Metrics need timestamps; without them the queue never reads the clock on add/get/done. */
    private final boolean timed;

    // guarded by this
    private final HashMap<T, ItemState<T>> states = new HashMap<>();
    private final ReadyQueue<T> ready = new ReadyQueue<>();
    private final DelayedItems<T> delayed = new DelayedItems<>();
    private final ArrayDeque<Demand<T>> waiters = new ArrayDeque<>();
    private final HashSet<ItemState<T>> inFlight;
    private int processing;
    private int dirtyWhileProcessing;
    private boolean shuttingDown;
    private long armedAt = Long.MAX_VALUE;
    private long armGeneration;
    private Disposable timer;

    private final Sinks.Empty<Void> drainedAndDone = Sinks.empty();
    /**
     * Shut down, drained and nothing processing: final once true. Set under the lock, read by
     * {@link #deliver} after it to complete {@link #drainedAndDone}.
     */
    private volatile boolean finished;

    DefaultWorkQueue(String name, Scheduler scheduler, RateLimiter<T> rateLimiter, WorkQueueMetrics.Provider metrics) {
        this.name = name;
        this.scheduler = scheduler;
        this.rateLimiter = rateLimiter;
        WorkQueueMetrics recorder = metrics.register(name, this);
        this.metrics = Objects.requireNonNull(recorder, "metrics provider returned null");
        this.timed = recorder != NoopWorkQueueMetrics.INSTANCE;
        this.inFlight = timed ? new HashSet<>() : null;
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
        synchronized (this) {
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
        synchronized (this) {
            if (shuttingDown) {
                return;
            }
            ItemState<T> state = stateLocked(item);
            int p = priority.value();
            if (state.dirty) {
                raiseLocked(state, p);
                return;
            }
            long readyAt = saturatedAdd(now(), saturatedNanos(delay));
            if (state.delayed != null) {
                state.priority = Math.max(state.priority, p);
                if (readyAt >= state.delayed.readyAt) {
                    return;
                }
            } else {
                state.priority = p;
            }
            delayed.offer(state, readyAt);
            generation = armLocked();
            at = armedAt;
        }
        if (generation != 0) {
            arm(generation, at);
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
        Duration delay = rateLimiter.when(item, now());
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
            states.put(item, state);
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
            metrics.added();
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
        if (timed) {
            state.sinceNanos = now();
        }
        ready.offer(state);
    }

    // ---------------------------------------------------------------- delay timer

    /** Arms the timer if the earliest ready time moved before the armed one; returns its generation or 0. */
    private long armLocked() {
        long earliest = delayed.earliest();
        if (earliest >= armedAt) {
            return 0;
        }
        armedAt = earliest;
        return ++armGeneration;
    }

    private void arm(long generation, long at) {
        // scheduled outside the lock: a virtual-time scheduler runs a due task inside schedule()
        Disposable scheduled = scheduler.schedule(() -> fire(generation), Math.max(0, at - now()), TimeUnit.NANOSECONDS);
        Disposable replaced = null;
        synchronized (this) {
            if (generation == armGeneration) {
                replaced = timer;
                timer = scheduled;
                scheduled = null;
            }
        }
        if (replaced != null) {
            replaced.dispose();
        }
        if (scheduled != null) {
            // superseded by an earlier timer, or already run
            scheduled.dispose();
        }
    }

    private void fire(long generation) {
        Demand<T> out;
        long next;
        long at;
        synchronized (this) {
            if (generation == armGeneration) {
                armedAt = Long.MAX_VALUE;
                timer = null;
            }
            if (shuttingDown) {
                return;
            }
            long now = now();
            ItemState<T> state;
            while ((state = delayed.pollReady(now)) != null) {
                markDirtyLocked(state, state.priority, true);
            }
            next = armLocked();
            at = armedAt;
            out = matchLocked(null);
        }
        deliver(out);
        if (next != 0) {
            arm(next, at);
        }
    }

    // ---------------------------------------------------------------- hand-out

    @Override
    public Mono<T> get() {
        return new GetMono<>(this);
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
        return new ProcessMono<>(this, concurrency, worker, outcomes);
    }

    /** Parks a demand; it is served at once if an item is ready or the queue is drained. */
    void request(Demand<T> demand) {
        Demand<T> out = null;
        T item = null;
        int priority = 0;
        synchronized (this) {
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
            deliverOne(demand, item, priority);
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
    int next(ProcessMono.Slot<T> slot, T finished) {
        Demand<T> out;
        int result;
        synchronized (this) {
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
    synchronized void unpark(Demand<T> demand) {
        waiters.remove(demand);
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
        if (timed) {
            long now = now();
            metrics.queued(now - state.sinceNanos);
            state.sinceNanos = now;
            inFlight.add(state);
        }
        return state;
    }

    /** Carries out the hand-offs chained by {@link #matchLocked}, in the order they were decided. */
    private void deliver(Demand<T> out) {
        Demand<T> inOrder = null;
        while (out != null) {
            Demand<T> next = out.nextHandOff;
            out.nextHandOff = inOrder;
            inOrder = out;
            out = next;
        }
        while (inOrder != null) {
            Demand<T> demand = inOrder;
            inOrder = demand.nextHandOff;
            T item = demand.handOffItem;
            demand.nextHandOff = null;
            demand.handOffItem = null;
            deliverOne(demand, item, demand.handOffPriority);
        }
        if (finished) {
            drainedAndDone.tryEmitEmpty();
        }
    }

    /** Hands a claimed demand its item, or the end when {@code item} is null. */
    private void deliverOne(Demand<T> demand, T item, int priority) {
        try {
            if (item != null) {
                demand.deliver(item, priority);
            } else {
                demand.drained();
            }
        } catch (Throwable e) {
            Exceptions.throwIfJvmFatal(e);
            LOG.error("work queue {}: a consumer threw while receiving an item", name, e);
        }
    }

    // ---------------------------------------------------------------- done

    @Override
    public void done(T item) {
        Objects.requireNonNull(item, "item");
        Demand<T> out;
        synchronized (this) {
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
        synchronized (this) {
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
        if (timed) {
            metrics.worked(now() - state.sinceNanos);
            inFlight.remove(state);
        }
        if (state.dirty) {
            dirtyWhileProcessing--;
            enqueueLocked(state);
        } else if (state.delayed == null) {
            states.remove(state.item);
        }
    }

    // ---------------------------------------------------------------- shutdown

    @Override
    public void shutDown() {
        Demand<T> out;
        Disposable cancelled;
        synchronized (this) {
            if (!shuttingDown) {
                shuttingDown = true;
                delayed.clear(state -> {
                    if (!state.dirty && !state.processing) {
                        states.remove(state.item);
                    }
                });
            }
            cancelled = timer;
            timer = null;
            armedAt = Long.MAX_VALUE;
            armGeneration++;
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
    public synchronized boolean isShuttingDown() {
        return shuttingDown;
    }

    @Override
    public synchronized int size() {
        return ready.size();
    }

    // ---------------------------------------------------------------- gauges

    @Override
    public int depth() {
        return size();
    }

    @Override
    public synchronized double unfinishedWorkSeconds() {
        if (inFlight == null) {
            return 0;
        }
        long now = now();
        long total = 0;
        for (ItemState<T> state : inFlight) {
            total += now - state.sinceNanos;
        }
        return total / 1e9;
    }

    @Override
    public synchronized double longestRunningProcessorSeconds() {
        if (inFlight == null) {
            return 0;
        }
        long now = now();
        long longest = 0;
        for (ItemState<T> state : inFlight) {
            longest = Math.max(longest, now - state.sinceNanos);
        }
        return longest / 1e9;
    }

    // ---------------------------------------------------------------- time

    long now() {
        return scheduler.now(TimeUnit.NANOSECONDS);
    }

    static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        // overflow only when both operands have the same sign and the sum's sign differs
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return sum;
    }

    @Override
    public String toString() {
        return "WorkQueue[" + name + "]";
    }
}
