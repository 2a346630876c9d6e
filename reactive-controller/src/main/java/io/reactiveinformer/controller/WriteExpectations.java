package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ResourceVersions;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The resourceVersions a controller's own writes returned, per request that made them and per informer that
 * should see them (client-go v0.36's consistency store): before a request is reconciled again, each of those
 * informers' caches must have reached its version, or the reconcile would read a state older than what it
 * wrote itself and "correct" it back.
 *
 * <p>Thread-safe: a write may complete on any thread, even after its reconcile ended; one request's
 * versions change under the map's lock for that request.
 */
final class WriteExpectations {

    /** What a reconcile finds in its Reactor {@code Context}: where its writes are recorded. */
    record Scope(Request request, WriteExpectations expectations) {

        void wrote(SharedIndexInformer<?> informer, KubernetesObject written) {
            if (written.getMetadata() != null) {
                expectations.record(request, informer, written.getMetadata().getResourceVersion());
            }
        }
    }

    private final ConcurrentHashMap<Request, Map<SharedIndexInformer<?>, String>> byRequest = new ConcurrentHashMap<>();

    Scope scope(Request request) {
        return new Scope(request, this);
    }

    /** Keeps the newer of two versions for one informer; of two that do not compare, the one recorded last. */
    void record(Request request, SharedIndexInformer<?> informer, String resourceVersion) {
        if (resourceVersion == null || resourceVersion.isEmpty()) {
            return;
        }
        byRequest.compute(request, (key, versions) -> {
            Map<SharedIndexInformer<?>, String> map = versions != null ? versions : new HashMap<>(2);
            map.merge(informer, resourceVersion, (old, recorded) -> ResourceVersions.isAtLeast(old, recorded) ? old : recorded);
            return map;
        });
    }

    /**
     * Emits {@code true} once every informer has reached what {@code request}'s writes returned (and forgets
     * them), or {@code false} after {@code bound} on {@code scheduler}, keeping them for the next attempt; on
     * whichever thread that happens. {@code null} when there is nothing to wait for.
     */
    Mono<Boolean> caughtUp(Request request, Duration bound, Scheduler scheduler) {
        Map<SharedIndexInformer<?>, String> expected = snapshot(request);
        if (expected == null) {
            return null;
        }
        List<Mono<Void>> waits = new ArrayList<>(expected.size());
        expected.forEach((informer, version) -> waits.add(informer.storeReached(version)));
        return Mono.when(waits)
                .then(Mono.fromCallable(() -> {
                    forget(request, expected);
                    return true;
                }))
                .timeout(bound, Mono.just(false), scheduler);
    }

    private Map<SharedIndexInformer<?>, String> snapshot(Request request) {
        List<Map<SharedIndexInformer<?>, String>> copy = new ArrayList<>(1);
        byRequest.computeIfPresent(request, (key, versions) -> {
            copy.add(Map.copyOf(versions));
            return versions;
        });
        return copy.isEmpty() ? null : copy.get(0);
    }

    /** Forgets the versions reached, not one recorded meanwhile by a write that completed late. */
    private void forget(Request request, Map<SharedIndexInformer<?>, String> reached) {
        byRequest.computeIfPresent(request, (key, versions) -> {
            reached.forEach(versions::remove);
            return versions.isEmpty() ? null : versions;
        });
    }
}
