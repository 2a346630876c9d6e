package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.informer.InformerSyncException;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.leaderelection.LeaseTerm;
import io.reactiveinformer.leaderelection.ShardElector;
import io.reactiveinformer.workqueue.Priority;
import io.reactiveinformer.workqueue.RateLimiter;
import io.reactiveinformer.workqueue.WorkQueue;
import io.reactiveinformer.workqueue.WorkQueueMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Keeps primary objects of one kind reconciled (controller-runtime's controller): it watches the
 * primary informer and any informers of owned or related kinds, maps their notifications to
 * {@link Request}s of primaries, collects them in a rate-limited {@link WorkQueue}, and runs a
 * {@link Reconciler} for each.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>A request is pending at most once: many changes of an object before it is reconciled cause one
 *       reconcile.</li>
 *   <li>A request is never reconciled twice at once; changes during a reconcile cause exactly one more
 *       reconcile after it.</li>
 *   <li>At most {@link Builder#maxConcurrentReconciles} reconciles run at once.</li>
 *   <li>Reconciling starts only once every watched informer has synced and the controller has received
 *       its initial state, so a reconciler never acts on a partial cache. Initial-list adds and resyncs
 *       enter the queue at {@link Priority#LOW}: live changes are reconciled before the rest of the
 *       bulk.</li>
 *   <li>After a reconcile: {@link Result#done()} (or an empty {@code Mono}) forgets the request's
 *       failures; {@link Result#requeue()} and errors requeue it through the rate limiter (per-request
 *       exponential backoff by default); {@link Result#requeueAfter} requeues it after a delay.</li>
 *   <li>A reconcile never reads a state older than its request's own earlier writes marked with
 *       {@link Writes#observedBy}: it starts once the informers have seen them, or is requeued with backoff
 *       after {@link Builder#readYourWritesTimeout}.</li>
 *   <li>With {@link Builder#reconcileTimeout}, a reconcile that runs longer is cancelled and counts as an
 *       error.</li>
 * </ul>
 *
 * <h2>Threading and backpressure</h2>
 * Notifications are mapped to requests on the informers' delivery threads, which only add to the
 * queue and never wait. The reconciler is called on a worker of the controller's
 * {@link Builder#scheduler scheduler} (so a slow reconciler never holds up an informer) and its
 * {@code Mono} runs wherever it chooses. Workers pull a request from the queue only when one of the
 * {@code maxConcurrentReconciles} slots is free; until then requests wait in the queue, where they
 * collapse, and nothing else buffers them. Timers (delayed requeues, rate limits, sync retries) run on
 * the scheduler, which is also the clock: pass a {@code VirtualTimeScheduler} in tests.
 *
 * <h2>Several replicas</h2>
 * A controller deployed as several replicas must not reconcile one object in two replicas at once. With
 * {@link Builder#leaderElection} only the replica that leads reconciles; with {@link Builder#sharding} each
 * replica reconciles the requests of the shards it holds ({@link ShardElector#shardOf} of
 * {@link Request#key()}). Either way a request starts only while its {@link LeaseTerm} is held (checked
 * right before the reconciler is called), reconciles in flight are cancelled the moment the term ends,
 * which is before another replica may take over, and a request of a Lease not held is dropped: the
 * replica that holds it reconciles it. Each time a Lease is acquired, every primary object of it in the
 * cache is queued (at {@link Priority#LOW}), so nothing the previous holder left pending (such as a
 * {@link Result#requeueAfter}) is lost; a request for a deleted object that was pending at the previous
 * holder is lost with it, so do cleanup with finalizers, as usual.
 *
 * <p><b>Fenced writes.</b> Every write a reconcile makes through a {@code ResourceClient} within its
 * {@code Mono} carries the reconcile's term as a {@link io.reactiveinformer.api.WriteFence}: once the term
 * is no longer held (its renew deadline has passed on the election's clock, or it ended), the write is not
 * sent and fails with a {@link io.reactiveinformer.api.FencedWriteException}, which the queue treats as any
 * error. The fence is asked on subscription and again right before the request's first byte, so a replica
 * paused past its renew deadline (a GC pause, {@code SIGSTOP}, a throttled container) cannot write on
 * resuming, even before its own timers have run. The limit: a request already on the wire cannot be
 * recalled. A write admitted just before the deadline reaches the server after at most the network's
 * delay, and the successor cannot have taken over before {@code leaseDuration - renewDeadline} after it;
 * writes subscribed outside the reconcile's {@code Mono} (its context) are not fenced. Stopping the controller
 * stops its election after its reconciles, and the election releases its Leases.
 *
 * <p><b>Shards of the cache.</b> With {@link Builder#sharding(ShardElector)} every replica caches every object
 * and a request's shard is the hash of its key. With {@link Builder#sharding(ShardElector, ShardSelector.Key)}
 * a replica caches only the objects of the shards it holds, so its memory and the bytes it receives shrink
 * with its share: shard {@code i} of {@code n} is the {@code i}-th of {@code n} equal ranges of the hash
 * the API server computes (KEP-5866: FNV-1a of the object's uid or namespace), and the primary informer lists
 * and watches the union of the held ranges, relisting when it changes. A request's shard is that of its
 * namespace, or of the uid of its object in this replica's cache. Acquiring a shard widens the selection,
 * and its term begins (its requests are reconciled, its cached objects queued) only once the relist that
 * brings its objects is applied: a reconcile never reads a cache that lacks its shard. Losing a shard
 * narrows the selection; its objects leave the cache through the relist, which the primary's handlers see
 * as deletions of unknown final state (their requests, of a shard no longer held, are dropped). What a key
 * mapper must give: the namespace and name of a primary whose shard this replica can tell, i.e. one in its
 * cache (uid shards) or any (namespace shards). With uid shards a request whose object this replica does not
 * cache is not reconciled here, the last request of a deleted object included: clean up with finalizers.
 * Secondary informers are not sharded.
 *
 * <h2>Lifecycle</h2>
 * {@link #start()} registers the controller's handlers and starts the informers not started yet (a
 * controller built from a {@link SharedInformerFactory} starts the factory). Stopping the controller
 * never stops the informers, which may be shared: stop them (or the factory) separately.
 * {@link #shutdown()} stops gracefully; disposing {@link #start()}'s handle stops at once.
 */
public final class Controller {

    // This class is the lifecycle: its state under a private lock (not its monitor, which the users it is
    // handed to could hold). The wiring of the informers to the queue is Sources, the reconcile of one request
    // RequestWorker, the Lease terms LeaseTerms. The Builder stays nested because Controller.Builder is its
    // public name, and its public methods must be declared on that type.

    private static final Logger log = LoggerFactory.getLogger(Controller.class);

    private enum State {
        NEW,
        STARTED,
        STOPPING,
        STOPPED
    }

    private final String name;
    private final Sources sources;
    private final SharedInformerFactory factory;
    private final WorkQueue<Request> queue;
    private final RequestWorker worker;
    private final int maxConcurrentReconciles;
    private final Scheduler scheduler;
    /** Null without election. */
    private final LeaseTerms leases;

    private final Sinks.Empty<Void> synced = Sinks.empty();
    private final Sinks.Empty<Void> terminated = Sinks.empty();
    private final Disposable.Composite watching = Disposables.composite();
    private final Disposable.Swap workers = Disposables.swap();
    private final Disposable.Swap electing = Disposables.swap();
    private final Disposable lifecycle = new Lifecycle();

    private final Object lock = new Object();
    // Guarded by lock.
    private State state = State.NEW;
    private boolean reconciling;

    private Controller(Builder<?> builder, Sources sources) {
        this.name = builder.name != null ? builder.name : builder.primary.name();
        this.sources = sources;
        this.factory = builder.factory;
        this.maxConcurrentReconciles = builder.maxConcurrentReconciles;
        this.scheduler = builder.scheduler;
        this.leases = LeaseTerms.of(builder.leaderElector, builder.shardElector, builder.cacheShardKey, builder.primary);
        ReconcileMetrics reconcileMetrics = new ReconcileMetrics();
        Object registry = builder.meterRegistry != null ? builder.meterRegistry : GlobalMeterRegistry.orNull();
        if (registry != null) {
            MicrometerReconcileMetrics.register(registry, name, reconcileMetrics);
        }
        WorkQueueMetrics.Provider queueMetrics = builder.metrics != null ? builder.metrics
                : registry != null ? MicrometerReconcileMetrics.queueMetrics(registry) : WorkQueueMetrics.Provider.noop();
        this.worker = new RequestWorker(name, builder.reconciler, builder.scheduler, leases,
                builder.readYourWritesTimeout, builder.reconcileTimeout, reconcileMetrics,
                builder.observationRegistry == null ? null : ReconcileObservations.of(builder.observationRegistry, name));
        this.queue = WorkQueue.<Request>builder()
                .name(name)
                .scheduler(builder.scheduler)
                .rateLimiter(builder.rateLimiter)
                .metrics(queueMetrics)
                .build();
    }

    /** A controller of the objects of {@code primary}. */
    public static <T extends KubernetesObject> Builder<T> builder(SharedIndexInformer<T> primary) {
        return new Builder<>(Objects.requireNonNull(primary, "primary"), null);
    }

    /**
     * A controller of the {@code type} objects of {@code factory}'s informer for it; {@link #start()} starts
     * the factory.
     */
    public static <T extends KubernetesObject> Builder<T> builder(SharedInformerFactory factory, Class<T> type) {
        Objects.requireNonNull(factory, "factory");
        return new Builder<>(factory.informer(type), factory);
    }

    /** The controller's name: in its logs and as the {@code name} of its queue's metrics. */
    public String name() {
        return name;
    }

    /**
     * Starts watching and, once every informer has synced, reconciling. Idempotent: later calls return the
     * same handle. Disposing the handle stops at once: watching ends, running reconciles are cancelled and
     * queued requests dropped.
     *
     * <p>An informer that cannot sync (its list is refused, see {@link InformerSyncException}) is logged
     * and waited for again with backoff, since access may be granted later; {@link #hasSynced()} stays
     * pending meanwhile.
     */
    public Disposable start() {
        synchronized (lock) {
            if (state != State.NEW) {
                return lifecycle;
            }
            state = State.STARTED;
        }
        Mono<Void> allSynced = sources.watch(name, queue, watching, scheduler);
        if (leases != null) {
            leases.prepare(sources.primary());
            electing.update(leases.run(sources.primary(), queue, name));
        }
        if (factory != null) {
            factory.start();
        }
        sources.startInformers();
        watching.add(allSynced.subscribe(null, this::syncFailed, this::startReconciling));
        return lifecycle;
    }

    private void syncFailed(Throwable error) {
        synchronized (lock) {
            if (state != State.STARTED) {
                // stopping ended the handlers, which ends their wait for sync
                return;
            }
        }
        log.error("{}: informers will not sync; the controller stops without reconciling", name, error);
        synced.tryEmitError(error);
        stop();
    }

    private void startReconciling() {
        synchronized (lock) {
            if (state != State.STARTED) {
                return;
            }
            reconciling = true;
        }
        log.debug("{}: informers synced, reconciling with at most {} at once", name, maxConcurrentReconciles);
        synced.tryEmitEmpty();
        workers.update(queue.processWithOutcome(maxConcurrentReconciles, worker)
                .subscribe(null, e -> {
                    log.error("{}: workers failed", name, e);
                    stop();
                }, this::terminate));
    }

    /**
     * Completes once every informer has synced, the controller has received their initial state and
     * reconciling has begun. Fails with a {@link CancellationException} when the controller stopped
     * before.
     */
    public Mono<Void> hasSynced() {
        return synced.asMono();
    }

    /**
     * Stops gracefully; the returned {@code Mono} does it on subscription and completes when done: no
     * notification is taken any more, requests already queued are still reconciled, and reconciles in
     * flight finish; requeues they ask for and delayed requeues are dropped. Bound it with
     * {@code timeout} if a reconcile may hang, and dispose {@link #start()}'s handle after a timeout.
     *
     * <p>A controller that has not begun reconciling (its informers have not synced) stops at once, since
     * reconciling against an incomplete cache is what it must not do. Idempotent: later subscriptions wait
     * for the same end.
     */
    public Mono<Void> shutdown() {
        return Mono.defer(() -> {
            boolean drain;
            synchronized (lock) {
                if (state == State.STOPPING || state == State.STOPPED) {
                    return terminated.asMono();
                }
                state = State.STOPPING;
                drain = reconciling;
            }
            watching.dispose();
            if (!drain) {
                stop();
                return terminated.asMono();
            }
            log.debug("{}: shutting down, draining {} queued requests", name, queue.size());
            return queue.shutDownWithDrain().then(terminated.asMono());
        });
    }

    /** Stops at once; see {@link #start()}. */
    private void stop() {
        synchronized (lock) {
            if (state == State.STOPPED) {
                return;
            }
            state = State.STOPPED;
        }
        watching.dispose();
        workers.dispose();
        electing.dispose();
        queue.shutDown();
        synced.tryEmitError(new CancellationException(name + ": stopped before its informers synced"));
        terminated.tryEmitEmpty();
        log.debug("{}: stopped", name);
    }

    /** The workers ended after a graceful shutdown drained the queue. */
    private void terminate() {
        synchronized (lock) {
            state = State.STOPPED;
        }
        electing.dispose();
        terminated.tryEmitEmpty();
        log.debug("{}: shut down", name);
    }

    @Override
    public String toString() {
        return "Controller[" + name + "]";
    }

    private final class Lifecycle implements Disposable {

        @Override
        public void dispose() {
            stop();
        }

        @Override
        public boolean isDisposed() {
            synchronized (lock) {
                return state == State.STOPPED;
            }
        }
    }

    /**
     * Configures a {@link Controller}. Not thread-safe. Defaults: the primary informer's name, one
     * reconcile at a time, {@link RateLimiter#defaultControllerRateLimiter()},
     * {@link Schedulers#parallel()}, no predicate, meters in Micrometer's global registry when Micrometer is
     * on the class path (Spring Boot adds its registry to it), else none.
     *
     * @param <T> the primary object type
     */
    public static final class Builder<T extends KubernetesObject> {

        private final SharedIndexInformer<T> primary;
        private final SharedInformerFactory factory;
        private final List<Source<?>> secondaries = new ArrayList<>();
        private final List<EventPredicate<? super T>> predicates = new ArrayList<>();
        private String name;
        private int maxConcurrentReconciles = 1;
        private RateLimiter<Request> rateLimiter = RateLimiter.defaultControllerRateLimiter();
        private Scheduler scheduler = Schedulers.parallel();
        private WorkQueueMetrics.Provider metrics;
        private Object meterRegistry;
        private Object observationRegistry;
        private Duration readYourWritesTimeout = Duration.ofSeconds(10);
        private Duration reconcileTimeout;
        private Reconciler reconciler;
        private LeaderElector leaderElector;
        private ShardElector shardElector;
        private ShardSelector.Key cacheShardKey;

        private Builder(SharedIndexInformer<T> primary, SharedInformerFactory factory) {
            this.primary = primary;
            this.factory = factory;
        }

        /** The controller's name, in logs and as its queue's metrics {@code name}. */
        public Builder<T> name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isEmpty()) {
                throw new IllegalArgumentException("name must not be empty");
            }
            this.name = name;
            return this;
        }

        /**
         * Watches objects this controller creates for its primaries, reconciling the primaries
         * {@code mapper} names (typically {@link KeyMapper#controllerOwner}) when they change.
         */
        public <O extends KubernetesObject> Builder<T> owns(SharedIndexInformer<O> informer, KeyMapper<? super O> mapper) {
            return watches(informer, mapper, EventPredicate.always());
        }

        /** As {@link #owns(SharedIndexInformer, KeyMapper)}, for the notifications {@code predicate} passes. */
        public <O extends KubernetesObject> Builder<T> owns(SharedIndexInformer<O> informer, KeyMapper<? super O> mapper,
                                                            EventPredicate<? super O> predicate) {
            return watches(informer, mapper, predicate);
        }

        /** Watches related objects, reconciling the primaries {@code mapper} names when they change. */
        public <O extends KubernetesObject> Builder<T> watches(SharedIndexInformer<O> informer,
                                                               KeyMapper<? super O> mapper) {
            return watches(informer, mapper, EventPredicate.always());
        }

        /** As {@link #watches(SharedIndexInformer, KeyMapper)}, for the notifications {@code predicate} passes. */
        public <O extends KubernetesObject> Builder<T> watches(SharedIndexInformer<O> informer,
                                                               KeyMapper<? super O> mapper,
                                                               EventPredicate<? super O> predicate) {
            secondaries.add(new Source<>(Objects.requireNonNull(informer, "informer"),
                    Objects.requireNonNull(mapper, "mapper"), Objects.requireNonNull(predicate, "predicate")));
            return this;
        }

        /**
         * Filters the primary's notifications: one counts when every predicate given (in this and
         * earlier calls) passes it.
         */
        @SafeVarargs
        public final Builder<T> withPredicates(EventPredicate<? super T>... predicates) {
            for (EventPredicate<? super T> predicate : predicates) {
                this.predicates.add(Objects.requireNonNull(predicate, "predicate"));
            }
            return this;
        }

        /** The most reconciles running at once (for different requests), at least 1. Default 1. */
        public Builder<T> maxConcurrentReconciles(int maxConcurrentReconciles) {
            if (maxConcurrentReconciles < 1) {
                throw new IllegalArgumentException("maxConcurrentReconciles must be positive: " + maxConcurrentReconciles);
            }
            this.maxConcurrentReconciles = maxConcurrentReconciles;
            return this;
        }

        /** Delays requeues after errors and {@link Result#requeue()}. */
        public Builder<T> rateLimiter(RateLimiter<Request> rateLimiter) {
            this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
            return this;
        }

        /** Runs the reconciler's calls and every timer; the clock. Default {@link Schedulers#parallel()}. */
        public Builder<T> scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Where the queue reports its metrics, tagged with the controller's name. Default: the
         * {@link #meterRegistry}'s.
         */
        public Builder<T> metrics(WorkQueueMetrics.Provider metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * Registers the controller's own meters with {@code registry}, tagged with its name:
         * {@code controller_read_your_writes_waits_total{outcome=caught_up|requeued}} and
         * {@code controller_reconcile_timeouts_total}, and the queue's unless {@link #metrics} says otherwise.
         * Default: Micrometer's global registry when Micrometer is on the class path (Spring Boot adds its
         * own registry to it), else none; Micrometer is needed only then.
         */
        public Builder<T> meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Runs each reconcile inside a Micrometer {@code Observation} of {@code registry} named
         * {@code reactive.informer.reconcile}, with contextual name {@code reconcile <controller name>}:
         * low-cardinality key values {@code controller} (the name) and {@code result} ({@code success},
         * {@code requeue}, {@code requeue_after}, {@code error}, {@code timeout}, {@code cancelled}), the
         * high-cardinality {@code key} ({@code namespace/name}). The reconciler's {@code Mono} has the observation
         * in its Reactor context (under {@code ObservationThreadLocalAccessor.KEY}), so what it observes nests
         * under it. Default: none, as {@code ObservationRegistry.NOOP}; Micrometer's observation API is needed
         * only with one.
         */
        public Builder<T> observationRegistry(io.micrometer.observation.ObservationRegistry registry) {
            this.observationRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * How long a request whose earlier reconciles recorded writes ({@link Writes}) waits, before its next
         * reconcile, for the informers to have seen them; past it the request is requeued through the rate
         * limiter instead of reconciled against a cache older than its own writes. The wait holds one of the
         * {@link #maxConcurrentReconciles} slots and runs on the {@link #scheduler}. Default 10 seconds:
         * normally the informer sees a write within milliseconds.
         */
        public Builder<T> readYourWritesTimeout(Duration timeout) {
            this.readYourWritesTimeout = positive(timeout, "readYourWritesTimeout");
            return this;
        }

        /**
         * Cancels a reconcile that has not finished within {@code timeout} (measured on the
         * {@link #scheduler}) and counts it as failed: it is requeued through the rate limiter, with backoff
         * (controller-runtime's {@code ReconciliationTimeout}). Default: none, a reconcile may run for ever
         * and hold its slot.
         */
        public Builder<T> reconcileTimeout(Duration timeout) {
            this.reconcileTimeout = positive(timeout, "reconcileTimeout");
            return this;
        }

        private static Duration positive(Duration duration, String what) {
            Objects.requireNonNull(duration, what);
            if (duration.isZero() || duration.isNegative()) {
                throw new IllegalArgumentException(what + " must be positive: " + duration);
            }
            return duration;
        }

        /**
         * Reconciles only while {@code elector} leads (see the class documentation); the controller runs
         * the election from {@link #start()} on and stops it when it stops. Not with {@link #sharding}.
         */
        public Builder<T> leaderElection(LeaderElector elector) {
            this.leaderElector = Objects.requireNonNull(elector, "elector");
            return this;
        }

        /**
         * Reconciles only the requests of the shards {@code elector} holds (see the class documentation); the
         * controller runs the election from {@link #start()} on and stops it when it stops. Not with
         * {@link #leaderElection}.
         */
        public Builder<T> sharding(ShardElector elector) {
            this.shardElector = Objects.requireNonNull(elector, "elector");
            this.cacheShardKey = null;
            return this;
        }

        /**
         * As {@link #sharding(ShardElector)}, and the primary informer caches only the objects of the shards held
         * (see the class documentation, "Shards of the cache"): shard {@code i} of the elector's {@code n} is
         * the hash range {@link io.reactiveinformer.api.ShardRange#split split(i, n)} of {@code key}, listed and
         * watched with a server-side shard selector (filtered locally when the server ignores it). The primary
         * informer must be this controller's own: its cache follows the held shards from {@link #start()} on.
         */
        public Builder<T> sharding(ShardElector elector, ShardSelector.Key key) {
            this.shardElector = Objects.requireNonNull(elector, "elector");
            this.cacheShardKey = Objects.requireNonNull(key, "key");
            return this;
        }

        /** What reconciles a request. Required. */
        public Builder<T> reconciler(Reconciler reconciler) {
            this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
            return this;
        }

        public Controller build() {
            if (reconciler == null) {
                throw new IllegalStateException("a controller needs a reconciler(...)");
            }
            if (leaderElector != null && shardElector != null) {
                throw new IllegalStateException("a controller is either leader-elected or sharded, not both");
            }
            return new Controller(this, Sources.of(primary, predicates, secondaries));
        }
    }
}
