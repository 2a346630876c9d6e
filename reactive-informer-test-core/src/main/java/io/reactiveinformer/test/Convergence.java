package io.reactiveinformer.test;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Asserts that a cache converges to the server's state: "the cache equals a fresh LIST", compared
 * by key ({@code namespace/name}) and resourceVersion.
 *
 * <p>The check runs at once and then every {@code period} on the given scheduler (a
 * {@code VirtualTimeScheduler} makes the deadline virtual); the returned {@code Mono} completes at
 * the first match and fails with an {@link AssertionError} listing the differences at the deadline.
 * The cache supplier is called on the scheduler's threads: it must be safe to call from there.
 */
public final class Convergence {

    /** How often the cache is compared, unless told otherwise. */
    public static final Duration DEFAULT_PERIOD = Duration.ofMillis(20);

    private Convergence() {
    }

    /**
     * Completes once {@code cache} holds exactly what an unpaginated consistent LIST of {@code source}
     * returns, at the same resourceVersions.
     */
    public static <T extends KubernetesObject> Mono<Void> cacheMatchesList(Supplier<? extends Collection<? extends T>> cache,
                                                                          ListerWatcher<T> source, Duration deadline,
                                                                          Scheduler scheduler) {
        return cacheMatchesList(cache, source, deadline, DEFAULT_PERIOD, scheduler);
    }

    public static <T extends KubernetesObject> Mono<Void> cacheMatchesList(Supplier<? extends Collection<? extends T>> cache,
                                                                          ListerWatcher<T> source, Duration deadline,
                                                                          Duration period, Scheduler scheduler) {
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(source, "source");
        return Mono.defer(() -> {
            AtomicReference<String> lastDifference = new AtomicReference<>("never compared");
            return Flux.interval(Duration.ZERO, period, scheduler)
                    .onBackpressureDrop()
                    .concatMap(tick -> source.list(ListOptions.none()).map(list -> {
                        String difference = difference(versions(cache.get()), versions(list.items()));
                        lastDifference.set(difference);
                        return difference.isEmpty();
                    }), 1)
                    .filter(Boolean::booleanValue)
                    .next()
                    .timeout(deadline, Mono.<Boolean>defer(() -> Mono.error(new AssertionError(
                            "the cache did not match a fresh LIST within " + deadline + ": " + lastDifference.get()))),
                            scheduler)
                    .then();
        });
    }

    /**
     * Completes once {@code condition} holds, checked at once and then every {@link #DEFAULT_PERIOD}
     * on {@code scheduler}; fails with an {@link AssertionError} at the deadline.
     */
    public static Mono<Void> until(BooleanSupplier condition, Duration deadline, Scheduler scheduler) {
        Objects.requireNonNull(condition, "condition");
        return Flux.interval(Duration.ZERO, DEFAULT_PERIOD, scheduler)
                .onBackpressureDrop()
                .filter(tick -> condition.getAsBoolean())
                .next()
                .timeout(deadline, Mono.<Long>defer(() -> Mono.error(new AssertionError(
                        "the condition did not hold within " + deadline))), scheduler)
                .then();
    }

    /** {@code key -> resourceVersion} of some objects, in key order. */
    public static Map<String, String> versions(Collection<? extends KubernetesObject> objects) {
        Map<String, String> out = new TreeMap<>();
        for (KubernetesObject o : objects) {
            String ns = o.getMetadata().getNamespace();
            String key = ns == null || ns.isEmpty() ? o.getMetadata().getName() : ns + "/" + o.getMetadata().getName();
            out.put(key, o.getMetadata().getResourceVersion());
        }
        return out;
    }

    /** What differs between the cache and the list, empty when nothing does. */
    static String difference(Map<String, String> cache, Map<String, String> list) {
        StringBuilder b = new StringBuilder();
        TreeSet<String> keys = new TreeSet<>(cache.keySet());
        keys.addAll(list.keySet());
        for (String key : keys) {
            String inCache = cache.get(key);
            String inList = list.get(key);
            if (inCache == null) {
                b.append(" missing ").append(key).append('@').append(inList).append(';');
            } else if (inList == null) {
                b.append(" extra ").append(key).append('@').append(inCache).append(';');
            } else if (!inCache.equals(inList)) {
                b.append(" stale ").append(key).append('@').append(inCache).append(" (server ").append(inList)
                        .append(");");
            }
        }
        return b.toString().trim();
    }
}
