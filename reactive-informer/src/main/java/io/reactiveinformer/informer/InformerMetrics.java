package io.reactiveinformer.informer;

import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.WatchEvent;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Receives one informer's measurements. The informer depends only on this interface, so it works
 * without Micrometer on the classpath; {@link MicrometerInformerMetrics} is the Micrometer binding,
 * {@link Provider#noop()} the default.
 *
 * <p>Recording methods are called from the informer's reflector and apply threads: they must be cheap
 * and must not block.
 */
public interface InformerMetrics {

    /** The watch delivered an event of this type (bookmarks included). */
    void event(WatchEvent.Type type);

    /** A list or relist completed with this many objects. */
    void relisted(int objects);

    /** A list or watch failed and will be restarted after a backoff. */
    void restarted(KubernetesClientException error);

    /**
     * A subscriber started; its buffer depth and lag are now observable until the returned handle runs.
     * Called on the subscribing thread, which may be a network event loop: register, don't compute.
     *
     * @param subscriber  the subscriber's name
     * @param bufferDepth its pending notifications, readable from any thread
     * @param lagNanos    how long its oldest pending notification has waited (0 when none), in nanoseconds
     *                    of the informer's clock, readable from any thread
     * @return what to run when the subscriber ends, to stop observing it
     */
    Runnable subscriberAdded(String subscriber, IntSupplier bufferDepth, LongSupplier lagNanos);

    /**
     * User code failed for one object and the informer carried on ({@link UserCodeError}). Not called for
     * {@link UserCodeError.Stage#METRICS}: a hook that throws would be told of its own failure.
     */
    default void userCodeFailed(UserCodeError.Stage stage) {
    }

    /** Live values of an informer, read when a gauge is sampled; safe from any thread. */
    interface Gauges {

        /** Seconds since the cache last caught up with the server (a list, a watch event or a bookmark); NaN before. */
        double lastSyncAgeSeconds();

        /**
         * 1 while the informer has a shard selector that the server ignores (server-side sharding unsupported:
         * it receives every object and filters locally), else 0 (the default, for gauges made from a lambda).
         */
        default double shardFilteringLocally() {
            return 0;
        }
    }

    /** Creates the metrics of one informer when it is built. */
    @FunctionalInterface
    interface Provider {

        /**
         * @param informerName the informer's name, used as the {@code informer} tag
         * @param gauges       the informer's live values; hold them weakly if the registry outlives informers
         */
        InformerMetrics register(String informerName, Gauges gauges);

        /** Records nothing; the default. */
        static Provider noop() {
            return NoopInformerMetrics.PROVIDER;
        }
    }
}
