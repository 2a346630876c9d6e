package io.reactiveinformer.informer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * The number of the newest shard selection whose list the cache holds ({@link
 * io.reactiveinformer.watch.ShardSelection}), and the waits for a given one: the cache holds exactly that
 * selection's objects from the moment its relist is applied, and follows it from then on.
 *
 * <p><b>Threading.</b> Advanced by the apply loop only (one thread at a time), read from any thread. A wait
 * completes on the apply loop, or on the subscribing thread when reached already: callers move to their own
 * scheduler.
 */
final class AppliedSelection {

    private record Waiter(long target, MonoSink<Void> sink) {
    }

    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    private volatile long applied;

    /** A relist of selection {@code number} was applied. */
    void applied(long number) {
        if (number <= applied) {
            return;
        }
        applied = number;
        // the waiter adds itself before it reads applied again, so a waiter this loop misses sees the new value
        for (Waiter waiter : waiters) {
            if (waiter.target() <= number && waiters.remove(waiter)) {
                waiter.sink().success();
            }
        }
    }

    /** Completes once selection {@code number}, or a later one, is applied. */
    Mono<Void> reached(long number) {
        return Mono.create(sink -> {
            if (applied >= number) {
                sink.success();
                return;
            }
            Waiter waiter = new Waiter(number, sink);
            waiters.add(waiter);
            sink.onDispose(() -> waiters.remove(waiter));
            if (applied >= number && waiters.remove(waiter)) {
                sink.success();
            }
        });
    }
}
