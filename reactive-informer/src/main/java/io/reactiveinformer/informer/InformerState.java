package io.reactiveinformer.informer;

import io.reactiveinformer.api.KubernetesClientException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * One informer's lifecycle, sync and health state: what {@link SharedIndexInformer#isStarted()},
 * {@code isSynced()}, {@code hasSynced()}, {@code health()} and {@code healthChanges()} read.
 *
 * <p><b>Threading.</b> Every field a reader looks at is volatile or atomic, so readers take no lock and
 * never wait for the apply loop or the reflector. Writers (the reflector's thread, the apply loop, user
 * threads that start or stop) publish each change, then emit a snapshot under {@code emitLock}, which
 * only serializes emissions into the two replaying sinks (Reactor sinks need serialized callers). No
 * subscriber runs there: each subscriber of {@link #healthChanges()}, {@link #hasSynced()} and
 * {@link #syncFailure()} has its own hand-off to the observers scheduler, so the lock is held for an
 * enqueue per subscriber, and a slow or blocking observer delays only itself.
 */
final class InformerState implements InformerMetrics.Gauges {

    private static final int NEW = 0;
    private static final int STARTED = 1;
    private static final int STOPPED = 2;

    private record SyncStatus(boolean synced, Throwable failure) {
    }

    private final String name;
    private final Scheduler clock;
    private final Scheduler observers;
    private final int syncFailureThreshold;

    private final AtomicInteger lifecycle = new AtomicInteger(NEW);
    private volatile boolean wasStarted;
    private volatile boolean synced;
    private volatile long lastSyncMillis = -1;
    private volatile int consecutiveFailures;
    private volatile KubernetesClientException lastError;
    private volatile Throwable stopCause;
    private volatile boolean shardFilteringLocally;
    private final LongAdder userCodeErrors = new LongAdder();

    private final Object emitLock = new Object();
    private final Sinks.Many<SyncStatus> sync = Sinks.many().replay().latest();
    private final Sinks.Many<InformerHealth> health = Sinks.many().replay().latest();

    /**
     * @param clock    the informer's clock
     * @param observers runs the subscribers of the health and sync streams
     */
    InformerState(String name, Scheduler clock, Scheduler observers, int syncFailureThreshold) {
        this.name = name;
        this.clock = clock;
        this.observers = observers;
        this.syncFailureThreshold = syncFailureThreshold;
        emit(new SyncStatus(false, null));
        emitHealth();
    }

    // ---- lifecycle

    /** {@code true} for the one call that moved the informer from new to started. */
    boolean start() {
        if (!lifecycle.compareAndSet(NEW, STARTED)) {
            return false;
        }
        wasStarted = true;
        emitHealth();
        return true;
    }

    /**
     * {@code true} for the one call that stopped the informer. {@code cause} is {@code null} for a stop
     * by its owner, else why the informer could no longer follow the server.
     */
    boolean stop(Throwable cause) {
        if (lifecycle.getAndSet(STOPPED) == STOPPED) {
            return false;
        }
        if (cause instanceof KubernetesClientException error) {
            lastError = error;
        }
        stopCause = cause;
        if (!synced) {
            emit(new SyncStatus(false, cause == null
                    ? new InformerSyncException(name, "stopped before it synced")
                    : new InformerSyncException(name, "stopped before it synced: " + cause, cause)));
        }
        emitHealth();
        return true;
    }

    boolean isStarted() {
        return wasStarted;
    }

    boolean isStopped() {
        return lifecycle.get() == STOPPED;
    }

    // ---- sync

    /** The initial list is in the cache: cheap, for the apply loop's critical section. */
    void markSynced() {
        synced = true;
    }

    /** Tells {@link #hasSynced()} waiters (which may run user code): outside any lock. */
    void announceSynced() {
        emit(new SyncStatus(true, null));
        emitHealth();
    }

    boolean isSynced() {
        return synced;
    }

    Mono<Void> hasSynced() {
        return sync.asFlux()
                .filter(s -> s.synced || s.failure != null)
                .next()
                .flatMap(s -> s.synced ? Mono.<Void>empty() : Mono.<Void>error(s.failure))
                .publishOn(observers);
    }

    Mono<Void> syncFailure() {
        return sync.asFlux().filter(s -> s.failure != null).next().<Void>flatMap(s -> Mono.error(s.failure))
                .publishOn(observers);
    }

    // ---- what the reflector reports

    /** The cache caught up with the server: a list, a watch event or a bookmark arrived. */
    void caughtUp() {
        lastSyncMillis = clock.now(TimeUnit.MILLISECONDS);
        if (consecutiveFailures != 0) {
            consecutiveFailures = 0;
            emitHealth();
        }
    }

    /** A (re)list told whether the server ignores the informer's shard selector (see {@link InformerHealth}). */
    void listed(boolean shardFilteringLocally) {
        if (this.shardFilteringLocally != shardFilteringLocally) {
            this.shardFilteringLocally = shardFilteringLocally;
            emitHealth();
        }
    }

    /** A list or watch attempt failed; the reflector retries it. */
    void failed(KubernetesClientException error, int attempts) {
        lastError = error;
        consecutiveFailures = attempts;
        if (!synced && !error.isRetriable() && attempts >= syncFailureThreshold) {
            emit(new SyncStatus(false, new InformerSyncException(name, attempts, error)));
        }
        emitHealth();
    }

    @Override
    public double lastSyncAgeSeconds() {
        long last = lastSyncMillis;
        return last < 0 ? Double.NaN : (clock.now(TimeUnit.MILLISECONDS) - last) / 1000.0;
    }

    @Override
    public double shardFilteringLocally() {
        return shardFilteringLocally ? 1 : 0;
    }

    void userCodeFailed() {
        userCodeErrors.increment();
        emitHealth();
    }

    // ---- health

    InformerHealth health() {
        long last = lastSyncMillis;
        Duration age = last < 0 ? null : Duration.ofMillis(Math.max(0, clock.now(TimeUnit.MILLISECONDS) - last));
        int failures = consecutiveFailures;
        KubernetesClientException error = lastError;
        return new InformerHealth(name, wasStarted, synced, isStopped(), age, failures, error,
                failures > 0 && InformerHealth.isForbidden(error), userCodeErrors.sum(), stopCause, shardFilteringLocally);
    }

    /** The latest snapshot, then each change; a subscriber that falls behind skips to the latest. */
    Flux<InformerHealth> healthChanges() {
        return health.asFlux().onBackpressureLatest().publishOn(observers, 1);
    }

    private void emitHealth() {
        synchronized (emitLock) {
            health.tryEmitNext(health());
        }
    }

    private void emit(SyncStatus status) {
        synchronized (emitLock) {
            sync.tryEmitNext(status);
        }
    }
}
