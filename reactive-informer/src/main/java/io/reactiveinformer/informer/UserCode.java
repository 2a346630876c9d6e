package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.cache.IndexFailureListener;
import io.reactiveinformer.cache.ObjectKeys;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;
import reactor.core.publisher.BufferOverflowStrategy;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * Where one informer calls user code (transform, index functions, metrics hooks; handlers report here
 * too), so that a failure for one object costs that object's transform or index entry, never the
 * informer: each failure is counted (health and {@link InformerState}), logged once per stage and key
 * with the informer's name (later repeats at debug, so a poison object that changes often cannot flood
 * the log), and signalled on {@link #errors()}.
 *
 * <p>Thread-safe: user code runs on the reflector's thread (transform), the apply loop (index
 * functions, metrics) and subscribers' threads (handlers).
 */
final class UserCode {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);
    /** Keys logged at error level; past this many, failures of new keys are logged at debug only. */
    private static final int LOGGED_KEYS_LIMIT = 10_000;
    /** Failures one {@link #errors()} subscriber may have pending before it loses the oldest. */
    static final int OBSERVER_BUFFER = 1024;

    private final String informer;
    private final InformerState state;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    /** Serializes emissions into {@code errors}; held only while each subscriber's buffer takes the error. */
    private final Object emitLock = new Object();
    private final Sinks.Many<UserCodeError> errors = Sinks.many().multicast().directBestEffort();
    private final Scheduler observers;
    /** The informer's metrics once registered (registration itself may fail, and is reported here). */
    private volatile InformerMetrics metrics = NoopInformerMetrics.INSTANCE;

    /** @param observers runs the subscribers of {@link #errors()} */
    UserCode(String informer, InformerState state, Scheduler observers) {
        this.observers = observers;
        this.informer = informer;
        this.state = state;
    }

    /**
     * Failures as they happen, to the subscribers present then, each subscriber from its own buffer of
     * {@value #OBSERVER_BUFFER} drained on the observers scheduler: the thread that noticed a failure (the
     * apply loop, a network event loop) only enqueues it, and a slow subscriber loses its oldest
     * failures past that many (they are counted and logged), never delaying the informer.
     */
    Flux<UserCodeError> errors() {
        return errors.asFlux()
                .onBackpressureBuffer(OBSERVER_BUFFER, dropped -> { }, BufferOverflowStrategy.DROP_OLDEST)
                .publishOn(observers);
    }

    void failed(UserCodeError.Stage stage, String key, String detail, Throwable error) {
        UserCodeError failure = new UserCodeError(informer, stage, key, detail, error);
        state.userCodeFailed();
        if (stage != UserCodeError.Stage.METRICS) {
            try {
                metrics.userCodeFailed(stage);
            } catch (Throwable e) {
                Exceptions.throwIfFatal(e);
                failed(UserCodeError.Stage.METRICS, key, "userCodeFailed", e);
            }
        }
        String logKey = stage + "|" + detail + "|" + key;
        if (logged.size() < LOGGED_KEYS_LIMIT && logged.add(logKey)) {
            log.error("{}: {} failed for {}{}; {} (logged once per key)", informer, describe(stage), key,
                    detail == null ? "" : " (" + detail + ")", consequence(stage), error);
        } else {
            log.debug("{}: {} failed again for {}", informer, describe(stage), key, error);
        }
        synchronized (emitLock) {
            errors.tryEmitNext(failure);
        }
    }

    private static String describe(UserCodeError.Stage stage) {
        return switch (stage) {
            case TRANSFORM -> "the transform";
            case KEY -> "keying an object";
            case INDEX -> "an index function";
            case METRICS -> "a metrics hook";
            case HANDLER -> "a handler";
        };
    }

    private static String consequence(UserCodeError.Stage stage) {
        return switch (stage) {
            case TRANSFORM -> "the object is cached untransformed";
            case KEY -> "the object is left out of the cache";
            case INDEX -> "the object is cached but not under that index";
            case METRICS -> "the measurement is lost";
            case HANDLER -> "that subscriber is ended";
        };
    }

    /**
     * {@code transform}, made total: when it throws, returns {@code null} or changes the key, the object
     * goes on untransformed. The identity stays the identity (no cost for informers without one).
     */
    <T extends KubernetesObject> UnaryOperator<T> guard(UnaryOperator<T> transform) {
        if (transform == null) {
            return UnaryOperator.identity();
        }
        return object -> {
            T transformed;
            try {
                transformed = transform.apply(object);
            } catch (Throwable e) {
                Exceptions.throwIfFatal(e);
                failed(UserCodeError.Stage.TRANSFORM, keyOrNull(object), null, e);
                return object;
            }
            if (transformed == object) {
                return object;
            }
            String key = keyOrNull(object);
            if (transformed == null || !Objects.equals(keyOrNull(transformed), key)) {
                failed(UserCodeError.Stage.TRANSFORM, key, null, new IllegalStateException(
                        "the transform returned " + (transformed == null ? "null" : "an object with another key")));
                return object;
            }
            return transformed;
        };
    }

    IndexFailureListener indexFailures() {
        return (indexName, key, error) -> failed(UserCodeError.Stage.INDEX, key, indexName, error);
    }

    Consumer<RuntimeException> unkeyable() {
        return error -> failed(UserCodeError.Stage.KEY, null, null, error);
    }

    /** {@code metrics} made safe to call, and told of every user-code failure from now on. */
    InformerMetrics guard(InformerMetrics metrics) {
        this.metrics = metrics;
        return new GuardedMetrics(metrics);
    }

    private static String keyOrNull(KubernetesObject object) {
        try {
            return ObjectKeys.keyOf(object);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Calls the user's metrics and reports what they throw, so a broken hook costs a measurement only. */
    private final class GuardedMetrics implements InformerMetrics {

        private final InformerMetrics delegate;

        GuardedMetrics(InformerMetrics delegate) {
            this.delegate = delegate;
        }

        @Override
        public void event(WatchEvent.Type type) {
            try {
                delegate.event(type);
            } catch (Throwable e) {
                hookFailed("event", e);
            }
        }

        @Override
        public void relisted(int objects) {
            try {
                delegate.relisted(objects);
            } catch (Throwable e) {
                hookFailed("relisted", e);
            }
        }

        @Override
        public void restarted(KubernetesClientException error) {
            try {
                delegate.restarted(error);
            } catch (Throwable e) {
                hookFailed("restarted", e);
            }
        }

        @Override
        public Runnable subscriberAdded(String subscriber, IntSupplier bufferDepth, LongSupplier lagNanos) {
            Runnable unobserve;
            try {
                unobserve = delegate.subscriberAdded(subscriber, bufferDepth, lagNanos);
            } catch (Throwable e) {
                hookFailed("subscriberAdded", e);
                return () -> { };
            }
            return () -> {
                try {
                    if (unobserve != null) {
                        unobserve.run();
                    }
                } catch (Throwable e) {
                    hookFailed("subscriberRemoved", e);
                }
            };
        }

        private void hookFailed(String hook, Throwable e) {
            Exceptions.throwIfFatal(e);
            failed(UserCodeError.Stage.METRICS, null, hook, e);
        }
    }
}
