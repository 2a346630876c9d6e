package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.cache.ObjectKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The handlers of one informer and the fan-out to them (client-go's {@code sharedProcessor}).
 *
 * <p><b>The seam.</b> A handler added while the informer runs first gets the whole cache as adds, then
 * every later change, with nothing lost or repeated between the two. {@link #applyAndDistribute} (the
 * apply loop: a cache write plus its notifications) and {@link #add} (a snapshot of the cache plus
 * joining the handlers) therefore exclude each other on {@code seamLock}, as client-go's
 * {@code blockDeltas} does. Nothing else takes that lock: the handler array is copy-on-write and
 * volatile, so reading it, or the informer's state, never waits for a relist being applied.
 *
 * <p>Offers never wait for a handler (see {@link SubscriberBuffer}), so the lock is held for a cache
 * write plus one buffer insertion per handler and notification.
 */
final class SharedProcessor<T extends KubernetesObject> {

    private final Object seamLock = new Object();
    @SuppressWarnings("unchecked")
    private volatile HandlerRegistration<T>[] handlers = new HandlerRegistration[0];
    /** Set under seamLock, read anywhere; once true no handler joins. */
    private volatile boolean closed;

    /**
     * Runs {@code apply} (a cache write returning what handlers must be told) and offers its
     * notifications to the handlers, atomically with respect to {@link #add}. Resync notifications go
     * only to the handlers in {@code resyncDue}; a handler whose bounded buffer overflows is failed and
     * removed. A non-null {@code markSynced} runs after these notifications, still atomically with
     * respect to {@link #add}, and the sync point is marked in every handler's stream.
     */
    void applyAndDistribute(Supplier<List<Notification<T>>> apply, Set<HandlerRegistration<T>> resyncDue,
                            Runnable markSynced) {
        synchronized (seamLock) {
            List<Notification<T>> notifications = apply.get();
            HandlerRegistration<T>[] targets = handlers;
            List<HandlerRegistration<T>> overflowed = null;
            for (Notification<T> notification : notifications) {
                boolean resync = notification instanceof Notification.Updated<T> u && u.isResync();
                for (HandlerRegistration<T> handler : targets) {
                    if ((resync && !resyncDue.contains(handler)) || (overflowed != null && overflowed.contains(handler))) {
                        continue;
                    }
                    if (!handler.buffer.offer(notification)) {
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
            if (markSynced != null) {
                markSynced.run();
                for (HandlerRegistration<T> handler : handlers) {
                    handler.buffer.offerSynced();
                }
            }
        }
    }

    /**
     * Runs {@code beforeSnapshot}, offers {@code cache} to {@code handler}'s buffer as initial adds (and
     * the sync marker if {@code synced} says the informer has synced) and makes the handler a target of
     * later changes, atomically with respect to {@link #applyAndDistribute}.
     *
     * @return {@code false} when the buffer overflowed on the initial adds (the handler did not join);
     *         {@code true} otherwise, also when the processor is closed (the handler did not join
     *         either: the caller completes it)
     */
    boolean add(HandlerRegistration<T> handler, Supplier<List<T>> cache, BooleanSupplier synced,
                Runnable beforeSnapshot) {
        synchronized (seamLock) {
            beforeSnapshot.run();
            SubscriberBuffer<T> buffer = handler.buffer;
            for (T object : cache.get()) {
                if (!buffer.offer(new Notification.Added<>(ObjectKeys.keyOf(object), object, true))) {
                    return false;
                }
            }
            if (synced.getAsBoolean()) {
                buffer.offerSynced();
            }
            if (!closed) {
                HandlerRegistration<T>[] grown = Arrays.copyOf(handlers, handlers.length + 1);
                grown[grown.length - 1] = handler;
                handlers = grown;
            }
            return true;
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Runs {@code action} atomically with respect to {@link #add} and {@link #applyAndDistribute}. */
    void atSeam(Runnable action) {
        synchronized (seamLock) {
            action.run();
        }
    }

    void remove(HandlerRegistration<T> handler) {
        synchronized (seamLock) {
            HandlerRegistration<T>[] current = handlers;
            int i = Arrays.asList(current).indexOf(handler);
            if (i < 0) {
                return;
            }
            HandlerRegistration<T>[] shrunk = Arrays.copyOf(current, current.length - 1);
            System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
            handlers = shrunk;
        }
    }

    /** Takes no more handlers and completes the present ones once they have what was offered. */
    void close() {
        HandlerRegistration<T>[] ending;
        synchronized (seamLock) {
            closed = true;
            ending = handlers;
            handlers = Arrays.copyOf(ending, 0);
        }
        for (HandlerRegistration<T> handler : ending) {
            handler.buffer.complete();
        }
    }

    /** The handlers receiving notifications now; a lock-free read. */
    HandlerRegistration<T>[] handlers() {
        return handlers;
    }
}
