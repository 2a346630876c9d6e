package io.reactiveinformer.informer;

import io.reactiveinformer.api.ResourceVersions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * The resourceVersion an informer's cache has reached (client-go v0.36's
 * {@code LastStoreSyncResourceVersion}), and the waits for it to reach a given one. The reflector's own
 * version runs ahead of it by what waits in the FIFO; this one is what a read of the cache can rely on.
 *
 * <p><b>Threading.</b> Advanced by the FIFO's drain loop only (one thread at a time), read from any thread.
 * A wait completes on the thread that advances the version past its target, or on the subscribing thread
 * when it is reached already: callers move to their own scheduler.
 */
final class StoreVersion {

    private record Waiter(String target, MonoSink<Void> sink) {
    }

    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    private volatile String current = "";

    String current() {
        return current;
    }

    void advance(String version) {
        if (version.equals(current)) {
            return;
        }
        current = version;
        // the waiter adds itself before it reads current again, so a waiter this loop misses sees the new value
        if (!waiters.isEmpty()) {
            for (Waiter waiter : waiters) {
                if (ResourceVersions.isAtLeast(version, waiter.target()) && waiters.remove(waiter)) {
                    waiter.sink().success();
                }
            }
        }
    }

    /** Completes once the version is at least {@code target} (see {@link ResourceVersions#isAtLeast}). */
    Mono<Void> reached(String target) {
        return Mono.create(sink -> {
            if (ResourceVersions.isAtLeast(current, target)) {
                sink.success();
                return;
            }
            Waiter waiter = new Waiter(target, sink);
            waiters.add(waiter);
            sink.onDispose(() -> waiters.remove(waiter));
            if (ResourceVersions.isAtLeast(current, target) && waiters.remove(waiter)) {
                sink.success();
            }
        });
    }
}
