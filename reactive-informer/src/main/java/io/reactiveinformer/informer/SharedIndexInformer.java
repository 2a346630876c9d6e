package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ResourceVersions;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.cache.ConcurrentIndexer;
import io.reactiveinformer.cache.IndexFunction;
import io.reactiveinformer.cache.Indexer;
import io.reactiveinformer.cache.Lister;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.Reflector;
import io.reactiveinformer.watch.ReflectorOptions;
import io.reactiveinformer.watch.ShardSelection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * One list/watch of a resource shared by any number of handlers, with an indexed cache (client-go's
 * {@code SharedIndexInformer}).
 *
 * <p>A {@link Reflector} lists and watches through the {@link ListerWatcher}; its events go into a
 * {@link DeltaFifo}; the apply loop drains the FIFO, applies each entry to the {@link Indexer} and fans
 * the resulting {@link Notification}s out to the handlers. Each handler is a subscription to
 * {@link #notifications(SubscriberOptions)} (or to a {@link #register registration}'s flux): it first
 * gets the whole cache as adds flagged in-initial-list, then every later change, with nothing lost or
 * repeated at the seam, and is drained from its own buffer by its own demand (see {@link BufferPolicy}).
 * A relist swaps the cache in one step, then tells handlers of the vanished objects (deletions with
 * the last known state) and of the listed ones (updates and adds).
 *
 * <h2>Threading</h2>
 * <ul>
 *   <li><b>Reflector:</b> its events are handled on the thread that emits them (the
 *       {@link ListerWatcher}'s, e.g. a Netty event loop, or a worker of {@link Builder#scheduler}
 *       after a backoff); handling one only pushes it into the FIFO (the transform runs there).</li>
 *   <li><b>Apply loop:</b> the FIFO's drain loop, on {@link Builder#deliveryScheduler}, never on the
 *       pushing thread: it takes one entry at a time, applies it to the cache and offers the notifications to
 *       the subscribers' buffers, and yields the thread after about a millisecond of work. A relist's
 *       cache swap and diff therefore never run on a network event loop. Between two entries it admits
 *       the subscribers that asked to join, with one snapshot of the cache for all of them: that is what
 *       makes the seam between initial state and live changes exact, without a lock that a subscribing
 *       thread could hold. Reads ({@link #isStarted()}, {@link #isSynced()}, {@link #health()},
 *       {@link #indexer()}, {@link #lister()}) take no lock at all.</li>
 *   <li><b>Subscribing:</b> O(1) on the subscribing thread (a WebFlux event loop, typically): the
 *       handler is queued for the apply loop; it never reads the cache there and never waits.</li>
 *   <li><b>Subscribers:</b> each one is a drain task scheduled on {@link Builder#deliveryScheduler}
 *       (or, for a {@link SubscriberOptions#blocking() blocking} one, on
 *       {@link Builder#blockingScheduler}) whenever it has notifications and demand; a task delivers
 *       for about a millisecond and then lets other tasks run, and the default delivery scheduler is
 *       work-stealing, so a subscriber whose handler is slow delays another only when every delivery
 *       thread is busy, and then by at most one of its handler calls, never by its backlog. Its memory
 *       is bounded by its {@link BufferPolicy}. A failing or cancelled subscriber affects only itself.</li>
 *   <li><b>Timers:</b> the resync check and the reflector's backoff and timeouts run on
 *       {@link Builder#scheduler}, which is also the clock.</li>
 * </ul>
 *
 * <p>Which thread runs each piece of user code is listed in one place, the package documentation.
 *
 * <h2>User code</h2>
 * A transform, index function or metrics hook that throws for an object costs that object its
 * transform or index entry, never the informer: the object is still cached, the failure is counted in
 * {@link #health()}, logged once per key and signalled on {@link #userCodeErrors()}. A handler that
 * throws ends its own subscription only (signalled the same way). Should the reflector's stream ever
 * end, the informer stops and says so: {@link #isStopped()}, {@link #health()} and a pending
 * {@link #hasSynced()} tell the truth.
 *
 * <h2>Resync</h2>
 * Every resync check period the informer finds the handlers whose own period is due and queues a
 * resync of every cached object; the resulting updates (and those of a relist that found an object at
 * the same resourceVersion) carry {@link Notification.Updated#isResync()} and go only to those handlers.
 *
 * <h2>Structure</h2>
 * This class is the public facade and its {@link Builder}: it wires the parts, each with one job, and
 * owns the lifecycle. {@link ReflectorFeed} pushes the reflector's events into the FIFO,
 * {@link ApplyLoop} applies the FIFO to the cache and hands the notifications to the
 * {@link SharedProcessor} (the handlers and the seam), {@link HandlerSubscriptions} turns a subscription
 * into a handler with its {@link SubscriberBuffer}, {@link ResyncSchedule} decides which handlers are
 * due for a resync, and {@link InformerState} holds the lifecycle, sync and health state. It stays above
 * 400 lines only for its Javadoc (the threading contract users rely on) and the nested public
 * {@code Builder}, which the public API fixes in place.
 *
 * @param <T> the object type
 */
public final class SharedIndexInformer<T extends KubernetesObject> {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    private final String name;
    private final InformerSpec<T> spec;
    private final Reflector<T> reflector;
    private final ConcurrentIndexer<T> indexer;
    private final Lister<T> lister;
    private final DeltaFifo<T> fifo;
    private final InformerState state;
    private final UserCode userCode;
    private final SharedProcessor<T> processor;
    private final ResyncSchedule<T> resync;
    private final ApplyLoop<T> applyLoop;
    private final ReflectorFeed<T> feed;
    private final ShardSelection shards;
    private final AppliedSelection appliedShards = new AppliedSelection();
    private final HandlerSubscriptions<T> subscriptions;
    private final AtomicInteger handlersCreated = new AtomicInteger();
    /** Where waits on the store's version complete: never inline on the apply loop that advanced it. */
    private final Scheduler observers;

    private final Disposable.Composite running = Disposables.composite();
    private final Disposable lifecycle = new Lifecycle();

    private SharedIndexInformer(Builder<T> builder) {
        this.spec = builder.spec;
        this.name = builder.name != null ? builder.name : spec.displayName();
        Scheduler scheduler = builder.scheduler;
        Scheduler deliveryScheduler = builder.deliveryScheduler();
        this.observers = builder.observerScheduler();
        this.state = new InformerState(name, scheduler, observers, builder.syncFailureThreshold);
        this.userCode = new UserCode(name, state, observers);
        this.indexer = new ConcurrentIndexer<>(builder.indexers, userCode.indexFailures());
        this.lister = new Lister<>(indexer);
        LongSupplier clock = () -> scheduler.now(TimeUnit.NANOSECONDS);
        this.processor = new SharedProcessor<>(indexer::list, state::isSynced, clock, this::wakeApplyLoop);
        // The apply loop shares the subscribers' work-stealing scheduler: behind a relist being applied on one
        // thread, other informers' entries and subscribers run on the others.
        this.fifo = new DeltaFifo<>(indexer, userCode.guard(spec.transform()), deliveryScheduler, userCode.unkeyable(),
                processor::admitJoiners);
        this.resync = new ResyncSchedule<>(name, scheduler, builder.resyncPeriod);
        this.shards = ShardSelection.of(spec.shardSelector());
        this.reflector = Reflector.builder(builder.listerWatcher)
                .name(name)
                .options(builder.reflectorOptions.withSelectors(spec.labelSelector(), spec.fieldSelector())
                        .withShardSelector(spec.shardSelector()))
                .shardSelection(shards)
                .scheduler(scheduler)
                .interner(fifo::cachedIfUnchanged)
                .build();
        InformerMetrics metrics = userCode.guard(registerMetrics(builder.metrics));
        this.applyLoop = new ApplyLoop<>(name, indexer, new DeltaApplier<>(indexer), processor, resync, state,
                appliedShards, this::stop);
        this.feed = new ReflectorFeed<>(name, fifo, metrics, state);
        this.subscriptions = new HandlerSubscriptions<>(name, deliveryScheduler, builder.initialStateScheduler(),
                builder.blockingScheduler, processor, resync, userCode, metrics, clock);
    }

    /** Lets the apply loop admit joining handlers; the FIFO is built after the processor that calls this. */
    private void wakeApplyLoop() {
        fifo.wake();
    }

    /**
     * The gauges handed over are the informer's own state, not a lambda made for the call: a registry may
     * hold them weakly (Micrometer's gauges do), and a lambda nothing else references would be collected,
     * turning the gauge into NaN at the first GC.
     */
    private InformerMetrics registerMetrics(InformerMetrics.Provider provider) {
        try {
            return Objects.requireNonNull(provider.register(name, state), "metrics");
        } catch (RuntimeException e) {
            userCode.failed(UserCodeError.Stage.METRICS, null, "register", e);
            return InformerMetrics.Provider.noop().register(name, state);
        }
    }

    /** An informer over {@code listerWatcher}, which must already be scoped to the spec's namespace. */
    public static <T extends KubernetesObject> Builder<T> builder(InformerSpec<T> spec, ListerWatcher<T> listerWatcher) {
        return new Builder<>(spec, listerWatcher);
    }

    /** An informer of every object of {@code type} that {@code listerWatcher} lists. */
    public static <T extends KubernetesObject> Builder<T> builder(Class<T> type, ListerWatcher<T> listerWatcher) {
        return new Builder<>(InformerSpec.of(type), listerWatcher);
    }

    // ---- lifecycle

    /**
     * Starts listing and watching, and the resync checks. Idempotent: later calls return the same
     * handle. Disposing it stops the informer for good: the list or watch in flight is cancelled (which
     * releases its connection), pending FIFO entries are dropped, and every handler completes once it has
     * received what was already offered to it.
     */
    public Disposable start() {
        if (!state.start()) {
            return lifecycle;
        }
        running.add(fifo.start(applyLoop));
        running.add(feed.start(reflector.events(), this::stop));
        running.add(resync.start(processor::handlers, fifo::resync));
        log.debug("{}: started (resync check every {})", name, resync.checkPeriod());
        return lifecycle;
    }

    private void stop(Throwable cause) {
        if (!state.stop(cause)) {
            return;
        }
        running.dispose();
        processor.close();
        log.debug("{}: stopped", name);
    }

    /** Whether {@link #start()} was called. */
    public boolean isStarted() {
        return state.isStarted();
    }

    /** Whether the informer stopped: by {@link #start()}'s handle, or because it could no longer follow the server. */
    public boolean isStopped() {
        return state.isStopped();
    }

    // ---- sync

    /**
     * Completes once the cache holds the initial list. Fails with an {@link InformerSyncException}
     * when the server refused the list with a non-retriable answer (401, 403, 404, ...) for the
     * configured number of consecutive attempts, or when the informer stopped first. The informer keeps
     * retrying with backoff meanwhile: each subscription reflects the state at that time, and one made
     * after access was granted completes. Retriable failures (429, 5xx, transport) never fail it: add a
     * {@code timeout} for those.
     */
    public Mono<Void> hasSynced() {
        return state.hasSynced();
    }

    /** Whether the cache holds the initial list. */
    public boolean isSynced() {
        return state.isSynced();
    }

    /** Errors when the informer's sync has failed (now or later); never completes otherwise. */
    Mono<Void> syncFailure() {
        return state.syncFailure();
    }

    /** This informer's health now: lock-free, cheap enough for every readiness probe. */
    public InformerHealth health() {
        return state.health();
    }

    /**
     * The health now, then a new snapshot whenever it changes (started, synced, stopped, a failure or a
     * recovery, a user-code error); {@link InformerHealth#lastSyncAge()} is as of each snapshot. Never
     * completes; replays only the latest snapshot to a new subscriber.
     */
    public Flux<InformerHealth> healthChanges() {
        return state.healthChanges();
    }

    /**
     * Failures of user code as they happen (see {@link UserCodeError.Stage} for what the informer did
     * instead), to the subscribers present at the time; one that does not keep up misses some, which
     * {@link InformerHealth#userCodeErrors()} still counts. Never completes.
     *
     * <p>A handler's exception is seen here when it reaches the informer, i.e. when the subscriber's
     * {@code onNext} throws. Reactor's own lambda subscribers and operators such as {@code doOnNext}
     * catch it first, hand it to that subscription's error handler and cancel: the informer then only
     * sees the cancellation (the subscription ends alone either way).
     */
    public Flux<UserCodeError> userCodeErrors() {
        return userCode.errors();
    }

    /**
     * The resourceVersion the informer has caught up to: of the last list, watch event or bookmark
     * received; {@code ""} before the first list.
     */
    public String lastSyncResourceVersion() {
        return feed.lastSyncResourceVersion();
    }

    /**
     * The resourceVersion the cache has reached (client-go v0.36's {@code LastStoreSyncResourceVersion}):
     * every change the informer received up to it, and no later one it has not applied, is in the cache;
     * {@code ""} before the initial list is applied. It trails {@link #lastSyncResourceVersion()} by what
     * is still queued between the reflector and the cache, and advances with bookmarks too, so it moves
     * even while the watched objects do not change (as often as the server sends bookmarks).
     */
    public String lastStoreSyncResourceVersion() {
        return fifo.storeVersion().current();
    }

    /**
     * Completes once {@link #lastStoreSyncResourceVersion()} is at least {@code resourceVersion}, compared
     * as {@link ResourceVersions#isAtLeast} says: from then on the cache holds the change that produced it
     * (typically this process's own write) or a newer one. Completes on the blocking scheduler (or, when only
     * {@link Builder#scheduler} was set, that one), never inline on the apply loop; never completes if the
     * informer stops first, so bound it with {@code timeout}. Cancelling stops the wait.
     */
    public Mono<Void> storeReached(String resourceVersion) {
        Objects.requireNonNull(resourceVersion, "resourceVersion");
        return fifo.storeVersion().reached(resourceVersion).publishOn(observers);
    }

    /**
     * From now on the cache holds only the objects of {@code selector} (KEP-5866; {@code null}: every object,
     * {@link ShardSelector#none()}: none), instead of the {@linkplain InformerSpec#shardSelector() spec's}:
     * the list or watch in flight ends and the informer relists with it. The relist replaces the cache, so
     * handlers see the objects outside the new selector as deleted ({@link Notification.Deleted} with an
     * unknown final state) and those newly inside it as added. Used by a sharded controller to cache only
     * the shards its replica holds; an informer shared with other users shows them the same narrowing.
     *
     * <p>The returned {@code Mono} completes once the cache holds exactly the selection (its relist, or a
     * later selection's, is applied), on the blocking scheduler (see {@link #storeReached}); it does not
     * complete while the informer is not started or if it stops first. The selection is made on the call,
     * not on subscription.
     */
    public Mono<Void> selectShards(ShardSelector selector) {
        long number = shards.select(selector);
        return appliedShards.reached(number).publishOn(observers);
    }

    /** The shard selector the cache follows now or is relisting to; {@code null} for every object. */
    public ShardSelector shardSelector() {
        return shards.current();
    }

    // ---- cache

    /** The cache, read-only; see {@link Indexer} for its consistency. Indices can be added at any time. */
    public Indexer<T> indexer() {
        return indexer.readOnlyView();
    }

    /** Typed queries over the cache. */
    public Lister<T> lister() {
        return lister;
    }

    // ---- handlers

    /** A handler with default options: see {@link #notifications(SubscriberOptions)}. */
    public Flux<Notification<T>> notifications() {
        return notifications(SubscriberOptions.defaults());
    }

    /**
     * Each subscription is a new handler with these options (see {@link HandlerRegistration#notifications()});
     * use {@link #register} to also get the handler's {@code hasSynced} and buffer depth.
     */
    public Flux<Notification<T>> notifications(SubscriberOptions options) {
        Objects.requireNonNull(options, "options");
        return Flux.defer(() -> register(options).notifications());
    }

    /** A handler, added to the informer when its {@link HandlerRegistration#notifications()} is subscribed. */
    public HandlerRegistration<T> register(SubscriberOptions options) {
        Objects.requireNonNull(options, "options");
        String handlerName = options.name() != null ? options.name() : "handler-" + handlersCreated.incrementAndGet();
        return new HandlerRegistration<>(this, options, handlerName);
    }

    /** How often resyncs are checked for; zero for never. Lowered by handlers registered before start. */
    public Duration resyncCheckPeriod() {
        return resync.checkPeriod();
    }

    Handler<T> activate(HandlerRegistration<T> handler, CoreSubscriber<? super Notification<T>> actual) {
        return subscriptions.activate(handler, actual);
    }

    /**
     * The subscribers receiving notifications now: a service that opens one per client request (an SSE
     * stream) can watch that its count returns to its baseline once the clients have gone.
     */
    public int handlerCount() {
        return processor.size();
    }

    /**
     * The handlers receiving notifications now, in the order they joined (not those still joining): each
     * with its {@link HandlerRegistration#bufferDepth() buffer depth} and {@link HandlerRegistration#lag() lag},
     * so that a service can show which subscriber falls behind or was leaked.
     */
    public List<HandlerRegistration<T>> handlers() {
        Handler<T>[] current = processor.handlers();
        List<HandlerRegistration<T>> registrations = new ArrayList<>(current.length);
        for (Handler<T> handler : current) {
            registrations.add(handler.registration());
        }
        return registrations;
    }

    private final class Lifecycle implements Disposable {

        @Override
        public void dispose() {
            stop(null);
        }

        @Override
        public boolean isDisposed() {
            return isStopped();
        }
    }

    /** Configures a {@link SharedIndexInformer}. Not thread-safe. */
    public static final class Builder<T extends KubernetesObject> {

        private final InformerSpec<T> spec;
        private final ListerWatcher<T> listerWatcher;
        private String name;
        private ReflectorOptions reflectorOptions = ReflectorOptions.defaults();
        private Scheduler scheduler = Schedulers.parallel();
        private boolean schedulerSet;
        private Scheduler deliveryScheduler;
        private Scheduler blockingScheduler = Schedulers.boundedElastic();
        private boolean blockingSchedulerSet;
        private Duration resyncPeriod = Duration.ZERO;
        private Map<String, IndexFunction<T>> indexers = Map.of();
        private int syncFailureThreshold = 3;
        private InformerMetrics.Provider metrics = InformerMetrics.Provider.noop();

        private Builder(InformerSpec<T> spec, ListerWatcher<T> listerWatcher) {
            this.spec = Objects.requireNonNull(spec, "spec");
            this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
        }

        /** What logs, metrics and errors call the informer. Default {@link InformerSpec#displayName()}. */
        public Builder<T> name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Paging, streaming list, watch timeouts, backoff. The spec's selectors replace the options' ones.
         * Default {@link ReflectorOptions#defaults()}: streaming lists, falling back to LIST on a server without them.
         */
        public Builder<T> reflectorOptions(ReflectorOptions reflectorOptions) {
            this.reflectorOptions = Objects.requireNonNull(reflectorOptions, "reflectorOptions");
            return this;
        }

        /** Runs the resync checks and the reflector's delays and timeouts; the clock. Default {@link Schedulers#parallel()}. */
        public Builder<T> scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            this.schedulerSet = true;
            return this;
        }

        /**
         * Runs the subscribers' drain tasks, and so their handlers (those not declared
         * {@link SubscriberOptions#blocking() blocking}). Default: a work-stealing pool with a thread per
         * core shared by every informer in the JVM, in which an idle thread takes the tasks queued behind a
         * slow handler's call; or, when a {@link #scheduler(Scheduler) scheduler} was set (e.g. a
         * virtual-time one in a test), that scheduler. With {@link Schedulers#parallel()} here, a fast
         * subscriber's task dealt to the thread running a slow handler's call waits for that call.
         */
        public Builder<T> deliveryScheduler(Scheduler deliveryScheduler) {
            this.deliveryScheduler = Objects.requireNonNull(deliveryScheduler, "deliveryScheduler");
            return this;
        }

        /**
         * Runs the handlers of subscribers declared {@link SubscriberOptions#blocking() blocking}.
         * Default {@link Schedulers#boundedElastic()}.
         */
        public Builder<T> blockingScheduler(Scheduler blockingScheduler) {
            this.blockingScheduler = Objects.requireNonNull(blockingScheduler, "blockingScheduler");
            this.blockingSchedulerSet = true;
            return this;
        }

        /**
         * The resync check period (client-go's default handler resync period); zero (the default) for
         * none unless a handler registered before start asks for one. Handlers registered before start
         * with a shorter period lower it.
         */
        public Builder<T> resyncPeriod(Duration resyncPeriod) {
            Objects.requireNonNull(resyncPeriod, "resyncPeriod");
            if (resyncPeriod.isNegative()) {
                throw new IllegalArgumentException("resyncPeriod must not be negative: " + resyncPeriod);
            }
            this.resyncPeriod = !resyncPeriod.isZero() && resyncPeriod.compareTo(SubscriberOptions.MINIMUM_RESYNC_PERIOD) < 0
                    ? SubscriberOptions.MINIMUM_RESYNC_PERIOD : resyncPeriod;
            return this;
        }

        /** Secondary indices of the cache, besides the built-in namespace index. */
        public Builder<T> indexers(Map<String, IndexFunction<T>> indexers) {
            this.indexers = Map.copyOf(indexers);
            return this;
        }

        /**
         * After how many consecutive non-retriable list failures before the first sync
         * {@link SharedIndexInformer#hasSynced()} fails. Default 3.
         */
        public Builder<T> syncFailureThreshold(int attempts) {
            if (attempts < 1) {
                throw new IllegalArgumentException("attempts must be positive: " + attempts);
            }
            this.syncFailureThreshold = attempts;
            return this;
        }

        /** Default {@link InformerMetrics.Provider#noop()}. */
        public Builder<T> metrics(InformerMetrics.Provider metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * Runs the observers of the informer's own streams ({@link #healthChanges()},
         * {@link #userCodeErrors()}, {@link #hasSynced()}): the blocking scheduler, as such observers
         * commonly log, call out or block, and one that does must delay neither the informer nor its
         * handlers; the clock when only that was set (a virtual-time test sees them in virtual time).
         */
        Scheduler observerScheduler() {
            return blockingSchedulerSet || !schedulerSet ? blockingScheduler : scheduler;
        }

        /** The default delivery pool's partner for initial states; else the delivery scheduler itself. */
        Scheduler initialStateScheduler() {
            Scheduler delivery = deliveryScheduler();
            return delivery == DeliveryScheduler.shared() ? DeliveryScheduler.sharedInitialState() : delivery;
        }

        Scheduler deliveryScheduler() {
            return deliveryScheduler != null ? deliveryScheduler : schedulerSet ? scheduler : DeliveryScheduler.shared();
        }

        public SharedIndexInformer<T> build() {
            return new SharedIndexInformer<>(this);
        }
    }

    /** The informer's name, as logs, metrics and errors show it. */
    public String name() {
        return name;
    }

    /** What the informer watches: its identity in a {@link SharedInformerFactory}. */
    public InformerSpec<T> spec() {
        return spec;
    }

    @Override
    public String toString() {
        return "SharedIndexInformer[" + name + "]";
    }
}
