package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The handlers of one informer and the fan-out to them (client-go's {@code sharedProcessor}).
 *
 * <p><b>The seam.</b> A handler added while the informer runs first gets the whole cache as adds, then
 * every later change, with nothing lost or repeated between the two. Rather than excluding the apply
 * loop while a joining thread copies the cache (client-go's {@code blockDeltas}), joining is a request
 * to the apply loop, the cache's single writer: {@link #join} queues the handler and wakes the loop,
 * which {@link #admitJoiners admits} every queued handler between two entries, with one snapshot of the
 * cache for all of them. Nothing can change the cache between that snapshot and the handlers becoming
 * targets of the next entry's notifications, so the seam is exact without a lock; the snapshot is
 * turned into notifications by each subscriber's own drain task, as it requests them.
 *
 * <p><b>Threading.</b> {@link #join} and {@link #remove} run on any thread in O(1) (plus a copy of the
 * handler array to leave); {@link #admitJoiners}, {@link #distribute} and {@link #offerSynced} on the
 * apply loop only; {@link #close} on the thread that stops the informer. The {@code membership} lock
 * guards writes of the handler array and {@code closed}; it is held for an array copy, never for
 * anything proportional to the cache, and never while user code runs. The array is copy-on-write and
 * volatile, so the fan-out reads it without a lock.
 */
final class SharedProcessor<T extends KubernetesObject> {

    private final Supplier<List<T>> cache;
    private final BooleanSupplier synced;
    private final LongSupplier clock;
    private final Runnable wakeApplyLoop;

    private final Object membership = new Object();
    @SuppressWarnings("unchecked")
    private volatile Handler<T>[] handlers = new Handler[0];
    /** Set under {@code membership}, read anywhere; once true no handler joins. */
    private volatile boolean closed;
    private final Queue<Handler<T>> joining = new ConcurrentLinkedQueue<>();
    /**
     * Handlers that asked to join and are neither admitted nor gone: queued, or taken by the apply loop and
     * not in the array yet. Guarded by {@code membership}, so that {@link #size()} never misses one.
     */
    private int joiningCount;

    /**
     * @param cache         a snapshot of the cache, taken on the apply loop
     * @param synced        whether the informer has synced, read on the apply loop
     * @param clock         nanoseconds on the informer's clock, stamped on what is offered
     * @param wakeApplyLoop makes the apply loop run {@link #admitJoiners} soon, even with no entry pending
     */
    SharedProcessor(Supplier<List<T>> cache, BooleanSupplier synced, LongSupplier clock, Runnable wakeApplyLoop) {
        this.cache = cache;
        this.synced = synced;
        this.clock = clock;
        this.wakeApplyLoop = wakeApplyLoop;
    }

    /**
     * Queues {@code handler} to join at the next point between two entries. O(1) on the calling thread.
     * On a closed processor the handler gets the (frozen) cache and completes.
     */
    void join(Handler<T> handler) {
        synchronized (membership) {
            joiningCount++;
        }
        joining.offer(handler);
        if (closed) {
            completeJoiners();
        } else {
            wakeApplyLoop.run();
        }
    }

    /**
     * Admits every queued handler: one snapshot of the cache is the initial state of all of them (with
     * the sync marker after it if the informer has synced), then they become targets of what is applied
     * next. Runs on the apply loop, between entries.
     */
    void admitJoiners() {
        if (joining.isEmpty()) {
            return;
        }
        List<Handler<T>> batch = new ArrayList<>();
        for (Handler<T> handler; (handler = joining.poll()) != null; ) {
            batch.add(handler);
        }
        if (batch.isEmpty()) {
            return;
        }
        List<T> snapshot = cache.get();
        Supplier<List<T>> initialState = () -> snapshot;
        boolean isSynced = synced.getAsBoolean();
        long now = clock.getAsLong();
        for (Handler<T> handler : batch) {
            handler.buffer.startFrom(initialState, isSynced, now);
        }
        boolean completeAll;
        synchronized (membership) {
            joiningCount -= batch.size();
            completeAll = closed;
            if (!closed) {
                List<Handler<T>> admitted = new ArrayList<>(handlers.length + batch.size());
                admitted.addAll(Arrays.asList(handlers));
                for (Handler<T> handler : batch) {
                    if (!handler.removed) {
                        admitted.add(handler);
                    }
                }
                handlers = admitted.toArray(handlers);
            }
        }
        if (completeAll) {
            batch.forEach(handler -> handler.buffer.complete());
        }
    }

    /**
     * Offers what applying one entry produced to the handlers. Resync notifications go only to the
     * handlers in {@code resyncDue}; a handler whose bounded buffer overflows is failed and removed.
     * Runs on the apply loop; never waits for a handler (see {@link SubscriberBuffer}).
     */
    void distribute(List<Notification<T>> notifications, Set<Handler<T>> resyncDue) {
        if (notifications.isEmpty()) {
            return;
        }
        long now = clock.getAsLong();
        Handler<T>[] targets = handlers;
        List<Handler<T>> overflowed = null;
        for (Notification<T> notification : notifications) {
            boolean resync = notification instanceof Notification.Updated<T> u && u.isResync();
            for (Handler<T> handler : targets) {
                if ((resync && !resyncDue.contains(handler)) || (overflowed != null && overflowed.contains(handler))) {
                    continue;
                }
                if (!handler.buffer.offer(notification, now)) {
                    handler.buffer.overflow(handler.options().capacity());
                    if (overflowed == null) {
                        overflowed = new ArrayList<>(1);
                    }
                    overflowed.add(handler);
                }
            }
        }
        if (overflowed != null) {
            overflowed.forEach(this::remove);
        }
    }

    /** Marks the sync point in every handler's stream, after the initial list's notifications. Apply loop only. */
    void offerSynced() {
        long now = clock.getAsLong();
        for (Handler<T> handler : handlers) {
            handler.buffer.offerSynced(now);
        }
    }

    /** Removes {@code handler}, joined or still queued; O(handlers). */
    void remove(Handler<T> handler) {
        synchronized (membership) {
            handler.removed = true;
            if (joining.remove(handler)) {
                joiningCount--;
            }
            Handler<T>[] current = handlers;
            int i = Arrays.asList(current).indexOf(handler);
            if (i < 0) {
                return;
            }
            Handler<T>[] shrunk = Arrays.copyOf(current, current.length - 1);
            System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
            handlers = shrunk;
        }
    }

    /** Takes no more handlers and completes the present and queued ones once they have what was offered. */
    void close() {
        Handler<T>[] ending;
        synchronized (membership) {
            closed = true;
            ending = handlers;
            handlers = Arrays.copyOf(ending, 0);
        }
        for (Handler<T> handler : ending) {
            handler.buffer.complete();
        }
        completeJoiners();
    }

    /**
     * Gives each handler still queued the cache as it was left, read on its own drain task, and
     * completes it. Each queued handler is taken by one caller only: the queue hands it out once.
     */
    private void completeJoiners() {
        boolean isSynced = synced.getAsBoolean();
        long now = clock.getAsLong();
        for (Handler<T> handler; (handler = joining.poll()) != null; ) {
            synchronized (membership) {
                joiningCount--;
            }
            handler.buffer.startFrom(cache, isSynced, now);
            handler.buffer.complete();
        }
    }

    /** The handlers receiving notifications now; a lock-free read. */
    Handler<T>[] handlers() {
        return handlers;
    }

    /** Handlers receiving notifications or about to: the joined ones and those queued to join. */
    int size() {
        synchronized (membership) {
            return handlers.length + joiningCount;
        }
    }
}
