package io.reactiveinformer.workqueue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * A queue's items waiting for their ready time ({@link DelayedItems}) and the one timer armed on the
 * queue's {@link Scheduler} for the earliest of them. Its state is guarded by the queue's lock: the
 * {@code ...Locked} methods are called holding it. The timer is scheduled and disposed outside the
 * lock, since a virtual-time scheduler runs a task that is already due inside {@code schedule()}.
 *
 * <p>Arming is therefore two steps, like the queue's hand-offs. Under the lock,
 * {@link #delayLocked} or {@link #rearmLocked} decides whether the timer must move earlier and
 * returns that arming's generation (0 when it need not), and {@link #armedAtLocked} its time; after
 * the lock, the same thread calls {@link #arm}, which schedules the task. An arming superseded in
 * between (by an earlier one, by the task having run, or by {@link #disarmLocked}) has its task
 * disposed. The task calls the queue back with its generation ({@code onDue}), on a scheduler thread;
 * the queue then takes the ready items under its lock ({@link #pollReadyLocked}) and re-arms for the
 * next one.
 */
final class DelayTimer<T> {

    private final Object lock;
    private final Scheduler scheduler;
    private final LongConsumer onDue;

    // guarded by lock
    private final DelayedItems<T> items = new DelayedItems<>();
    private long armedAt = Long.MAX_VALUE;
    private long generation;
    private Disposable timer;

    /**
     * @param lock the queue's private lock, which guards this timer's state
     * @param onDue called with the generation of the arming whose time came, on a scheduler thread
     */
    DelayTimer(Object lock, Scheduler scheduler, LongConsumer onDue) {
        this.lock = lock;
        this.scheduler = scheduler;
        this.onDue = onDue;
    }

    /**
     * Lets an item that is not pending wait {@code delay} from now. An item already waiting keeps the earlier
     * of its two ready times and the higher of its two priorities. Returns the arming to carry out
     * with {@link #arm}, or 0.
     */
    long delayLocked(ItemState<T> state, int priority, Duration delay) {
        long readyAt = Nanos.add(now(), Nanos.of(delay));
        if (state.delayed != null) {
            state.priority = Math.max(state.priority, priority);
            if (readyAt >= state.delayed.readyAt) {
                return 0;
            }
        } else {
            state.priority = priority;
        }
        items.offer(state, readyAt);
        return rearmLocked();
    }

    /** Arms for the earliest ready time if it moved before the armed one; returns the arming's generation or 0. */
    long rearmLocked() {
        long earliest = items.earliest();
        if (earliest >= armedAt) {
            return 0;
        }
        armedAt = earliest;
        return ++generation;
    }

    /** The time of the arming last decided, to pass to {@link #arm} with its generation. */
    long armedAtLocked() {
        return armedAt;
    }

    /** Carries out an arming decided under the lock; called after the lock is released. */
    void arm(long generation, long at) {
        Disposable scheduled =
                scheduler.schedule(() -> onDue.accept(generation), Math.max(0, at - now()), TimeUnit.NANOSECONDS);
        Disposable replaced = null;
        synchronized (lock) {
            if (generation == this.generation) {
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

    /** The task of arming {@code generation} runs: unless superseded, nothing is armed any more. */
    void firedLocked(long generation) {
        if (generation == this.generation) {
            armedAt = Long.MAX_VALUE;
            timer = null;
        }
    }

    /** The next item whose ready time is not after {@code now}, or null; it no longer waits. */
    ItemState<T> pollReadyLocked(long now) {
        return items.pollReady(now);
    }

    /** Drops every waiting item, calling {@code onDropped} for each. */
    void clearLocked(Consumer<ItemState<T>> onDropped) {
        items.clear(onDropped);
    }

    /** Supersedes every arming; returns the timer to dispose once the lock is released, or null. */
    Disposable disarmLocked() {
        Disposable cancelled = timer;
        timer = null;
        armedAt = Long.MAX_VALUE;
        generation++;
        return cancelled;
    }

    private long now() {
        return scheduler.now(TimeUnit.NANOSECONDS);
    }
}
