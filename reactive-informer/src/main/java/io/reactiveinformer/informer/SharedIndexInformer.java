package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.cache.ConcurrentIndexer;
import io.reactiveinformer.cache.DeltaFifo;
import io.reactiveinformer.cache.FifoEntry;
import io.reactiveinformer.cache.IndexFunction;
import io.reactiveinformer.cache.Indexer;
import io.reactiveinformer.cache.Lister;
import io.reactiveinformer.cache.ObjectKeys;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.Reflector;
import io.reactiveinformer.watch.ReflectorEvent;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
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
 *   <li><b>Apply loop:</b> the FIFO's drain loop, run by whichever thread pushed or requested when no
 *       other thread was draining; it requests one entry at a time, applies it, then offers the
 *       notifications to the handlers' buffers while holding the informer's fan-out lock. Offers never
 *       wait for a handler, so the lock is held for a cache write plus one buffer insertion per
 *       handler. Registering a handler takes the same lock to copy the cache, which is what makes the
 *       seam between initial state and live changes exact.</li>
 *   <li><b>Handlers:</b> each one is called on its own worker of {@link Builder#deliveryScheduler}, as
 *       it requests; a slow, failing or cancelled handler affects only itself.</li>
 *   <li><b>Timers:</b> the resync check and the reflector's backoff and timeouts run on
 *       {@link Builder#scheduler}, which is also the clock.</li>
 * </ul>
 *
 * <h2>Resync</h2>
 * Every resync check period the informer finds the handlers whose own period is due and queues a
 * resync of every cached object; the resulting updates (and those of a relist that found an object at
 * the same resourceVersion) carry {@link Notification.Updated#isResync()} and go only to those handlers.
 *
 * @param <T> the object type
 */
public final class SharedIndexInformer<T extends KubernetesObject> {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    private record SyncStatus(boolean synced, Throwable failure) {
    }

    private static final SyncStatus PENDING = new SyncStatus(false, null);
    private static final SyncStatus SYNCED = new SyncStatus(true, null);

    private final String name;
    private final InformerSpec<T> spec;
    private final Reflector<T> reflector;
    private final Scheduler scheduler;
    private final Scheduler deliveryScheduler;
    private final ConcurrentIndexer<T> indexer;
    private final Lister<T> lister;
    private final DeltaFifo<T> fifo;
    private final DeltaApplier<T> applier;
    private final int syncFailureThreshold;
    private final InformerMetrics metrics;

    private final Object fanOutLock = new Object();
    // Guarded by fanOutLock.
    @SuppressWarnings("unchecked")
    private HandlerRegistration<T>[] handlers = new HandlerRegistration[0];
    private Duration resyncCheckPeriod;
    private boolean started;
    private boolean stopped;
    private int handlersCreated;

    /** The handlers whose resync is due at the latest check; replaced as a whole by each check. */
    private volatile Set<HandlerRegistration<T>> resyncing = Set.of();
    private volatile boolean synced;
    private volatile String lastSyncResourceVersion = "";
    private volatile long lastSyncMillis = -1;

    private final Object statusLock = new Object();
    private final Sinks.Many<SyncStatus> status = Sinks.many().replay().latest();
    private final Disposable.Composite running = Disposables.composite();
    private final Disposable lifecycle = new Lifecycle();

    private SharedIndexInformer(Builder<T> builder) {
        this.spec = builder.spec;
        this.name = builder.name != null ? builder.name : spec.displayName();
        this.scheduler = builder.scheduler;
        this.deliveryScheduler = builder.deliveryScheduler != null ? builder.deliveryScheduler : builder.scheduler;
        this.indexer = new ConcurrentIndexer<>(builder.indexers);
        this.lister = new Lister<>(indexer);
        UnaryOperator<T> transform = spec.transform() != null ? spec.transform() : UnaryOperator.identity();
        this.fifo = new DeltaFifo<>(indexer, transform);
        this.applier = new DeltaApplier<>(indexer);
        this.syncFailureThreshold = builder.syncFailureThreshold;
        this.resyncCheckPeriod = builder.resyncPeriod;
        this.reflector = Reflector.builder(builder.listerWatcher)
                .name(name)
                .options(builder.reflectorOptions.withSelectors(spec.labelSelector(), spec.fieldSelector()))
                .scheduler(scheduler)
                .build();
        this.metrics = builder.metrics.register(name, this::lastSyncAgeSeconds);
        emitStatus(PENDING);
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
        Duration checkPeriod;
        synchronized (fanOutLock) {
            if (started || stopped) {
                return lifecycle;
            }
            started = true;
            checkPeriod = resyncCheckPeriod;
        }
        ApplyLoop applyLoop = new ApplyLoop();
        running.add(applyLoop);
        fifo.entries().subscribe(applyLoop);
        running.add(reflector.events().subscribe(this::onReflectorEvent,
                e -> log.error("{}: the reflector failed; the informer no longer follows the server", name, e)));
        if (!checkPeriod.isZero()) {
            running.add(Flux.interval(checkPeriod, checkPeriod, scheduler).subscribe(tick -> checkResync()));
        }
        log.debug("{}: started (resync check every {})", name, checkPeriod);
        return lifecycle;
    }

    private void stop() {
        HandlerRegistration<T>[] ending;
        synchronized (fanOutLock) {
            if (stopped) {
                return;
            }
            stopped = true;
            ending = handlers;
            handlers = newArray(0);
        }
        running.dispose();
        for (HandlerRegistration<T> handler : ending) {
            handler.buffer.complete();
        }
        if (!synced) {
            emitStatus(new SyncStatus(false, new InformerSyncException(name, "stopped before it synced")));
        }
        log.debug("{}: stopped", name);
    }

    /** Whether {@link #start()} was called. */
    public boolean isStarted() {
        synchronized (fanOutLock) {
            return started;
        }
    }

    /** Whether the informer was stopped. */
    public boolean isStopped() {
        synchronized (fanOutLock) {
            return stopped;
        }
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
        return status.asFlux()
                .filter(s -> s.synced || s.failure != null)
                .next()
                .flatMap(s -> s.synced ? Mono.<Void>empty() : Mono.<Void>error(s.failure));
    }

    /** Whether the cache holds the initial list. */
    public boolean isSynced() {
        return synced;
    }

    /** Errors when the informer's sync has failed (now or later); never completes otherwise. */
    Mono<Void> syncFailure() {
        return status.asFlux().filter(s -> s.failure != null).next().flatMap(s -> Mono.error(s.failure));
    }

    /**
     * The resourceVersion the informer has caught up to: of the last list, watch event or bookmark
     * received; {@code ""} before the first list.
     */
    public String lastSyncResourceVersion() {
        return lastSyncResourceVersion;
    }

    // ---- cache

    /** The cache, read-only; see {@link Indexer} for its consistency. Indices can be added at any time. */
    public Indexer<T> indexer() {
        return indexer;
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
        String handlerName;
        synchronized (fanOutLock) {
            handlerName = options.name() != null ? options.name() : "handler-" + ++handlersCreated;
        }
        return new HandlerRegistration<>(this, options, handlerName);
    }

    /** How often resyncs are checked for; zero for never. Lowered by handlers registered before start. */
    public Duration resyncCheckPeriod() {
        synchronized (fanOutLock) {
            return resyncCheckPeriod;
        }
    }

    void activate(HandlerRegistration<T> handler, CoreSubscriber<? super Notification<T>> actual) {
        Runnable[] unobserve = new Runnable[1];
        SubscriberBuffer<T> buffer = new SubscriberBuffer<>(name, handler.name(),
                PendingNotifications.of(handler.options()), deliveryScheduler.createWorker(),
                new SubscriberBuffer.Owner() {
                    @Override
                    public void synced() {
                        handler.markSynced();
                    }

                    @Override
                    public void terminated(Throwable error) {
                        remove(handler);
                        if (unobserve[0] != null) {
                            unobserve[0].run();
                        }
                        handler.ended(error);
                    }
                }, actual);
        handler.buffer = buffer;
        boolean overflow = false;
        boolean alreadyStopped;
        synchronized (fanOutLock) {
            alreadyStopped = stopped;
            handler.resyncPeriod = effectiveResyncPeriod(handler);
            handler.nextResyncMillis = scheduler.now(TimeUnit.MILLISECONDS) + handler.resyncPeriod.toMillis();
            for (T object : indexer.list()) {
                if (!buffer.offer(new Notification.Added<>(ObjectKeys.keyOf(object), object, true))) {
                    overflow = true;
                    break;
                }
            }
            if (synced) {
                buffer.offerSynced();
            }
            if (!alreadyStopped && !overflow) {
                HandlerRegistration<T>[] grown = Arrays.copyOf(handlers, handlers.length + 1);
                grown[handlers.length] = handler;
                handlers = grown;
            }
        }
        unobserve[0] = metrics.subscriberAdded(handler.name(), buffer::depth);
        actual.onSubscribe(buffer);
        if (overflow) {
            buffer.overflow(handler.options().capacity());
        } else if (alreadyStopped) {
            buffer.complete();
        }
        buffer.start();
    }

    /** client-go's rules: at least the minimum; below the check period it lowers it before start, else is raised to it. */
    private Duration effectiveResyncPeriod(HandlerRegistration<T> handler) {
        Duration period = handler.options().resyncPeriod();
        if (period.isZero()) {
            return period;
        }
        if (resyncCheckPeriod.isZero() || period.compareTo(resyncCheckPeriod) < 0) {
            if (!started) {
                resyncCheckPeriod = period;
            } else if (resyncCheckPeriod.isZero()) {
                log.warn("{}: handler {} asks for a resync every {}, but the informer started without resync checks; "
                        + "it gets no resync", name, handler.name(), period);
                return Duration.ZERO;
            } else {
                log.warn("{}: handler {} asks for a resync every {}, below the started informer's check period {}; "
                        + "using the check period", name, handler.name(), period, resyncCheckPeriod);
                return resyncCheckPeriod;
            }
        }
        return period;
    }

    private void remove(HandlerRegistration<T> handler) {
        synchronized (fanOutLock) {
            int i = Arrays.asList(handlers).indexOf(handler);
            if (i < 0) {
                return;
            }
            HandlerRegistration<T>[] shrunk = newArray(handlers.length - 1);
            System.arraycopy(handlers, 0, shrunk, 0, i);
            System.arraycopy(handlers, i + 1, shrunk, i, handlers.length - i - 1);
            handlers = shrunk;
        }
    }

    /** The handlers receiving notifications now. */
    int handlerCount() {
        synchronized (fanOutLock) {
            return handlers.length;
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends KubernetesObject> HandlerRegistration<T>[] newArray(int length) {
        return new HandlerRegistration[length];
    }

    // ---- reflector → FIFO (on the reflector's thread)

    private void onReflectorEvent(ReflectorEvent<T> event) {
        if (event instanceof ReflectorEvent.Listed<T> listed) {
            metrics.relisted(listed.items().size());
            fifo.replace(listed.items(), listed.resourceVersion());
        } else if (event instanceof ReflectorEvent.Applied<T> applied) {
            metrics.event(applied.type());
            if (applied.type() == WatchEvent.Type.ADDED) {
                fifo.add(applied.object());
            } else {
                fifo.update(applied.object());
            }
        } else if (event instanceof ReflectorEvent.Deleted<T> deleted) {
            metrics.event(WatchEvent.Type.DELETED);
            fifo.delete(deleted.object());
        } else if (event instanceof ReflectorEvent.Bookmark<T>) {
            metrics.event(WatchEvent.Type.BOOKMARK);
        } else {
            ReflectorEvent.Failed<T> failed = (ReflectorEvent.Failed<T>) event;
            metrics.restarted(failed.error());
            if (!synced && !failed.error().isRetriable() && failed.consecutiveFailures() >= syncFailureThreshold) {
                emitStatus(new SyncStatus(false,
                        new InformerSyncException(name, failed.consecutiveFailures(), failed.error())));
            }
            return;
        }
        String resourceVersion = event.resourceVersion();
        if (resourceVersion != null && !resourceVersion.isEmpty()) {
            lastSyncResourceVersion = resourceVersion;
        }
        lastSyncMillis = scheduler.now(TimeUnit.MILLISECONDS);
    }

    private double lastSyncAgeSeconds() {
        long last = lastSyncMillis;
        return last < 0 ? Double.NaN : (scheduler.now(TimeUnit.MILLISECONDS) - last) / 1000.0;
    }

    private void emitStatus(SyncStatus s) {
        synchronized (statusLock) {
            status.tryEmitNext(s);
        }
    }

    // ---- resync (on the scheduler)

    private void checkResync() {
        long now = scheduler.now(TimeUnit.MILLISECONDS);
        Set<HandlerRegistration<T>> due = new HashSet<>();
        synchronized (fanOutLock) {
            for (HandlerRegistration<T> handler : handlers) {
                long period = handler.resyncPeriod.toMillis();
                if (period > 0 && now >= handler.nextResyncMillis) {
                    due.add(handler);
                    handler.nextResyncMillis = now + period;
                }
            }
        }
        resyncing = due;
        if (!due.isEmpty()) {
            fifo.resync();
        }
    }

    // ---- FIFO → cache → handlers (the apply loop)

    private void apply(FifoEntry<T> entry) {
        boolean becameSynced = false;
        synchronized (fanOutLock) {
            List<Notification<T>> notifications = applier.apply(entry);
            HandlerRegistration<T>[] targets = handlers;
            Set<HandlerRegistration<T>> due = resyncing;
            List<HandlerRegistration<T>> overflowed = null;
            for (Notification<T> notification : notifications) {
                boolean resync = notification instanceof Notification.Updated<T> u && u.isResync();
                for (HandlerRegistration<T> handler : targets) {
                    if ((resync && !due.contains(handler)) || (overflowed != null && overflowed.contains(handler))) {
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
            if (entry instanceof FifoEntry.Replace<T> replace && replace.initial() && !synced) {
                synced = true;
                becameSynced = true;
                for (HandlerRegistration<T> handler : handlers) {
                    handler.buffer.offerSynced();
                }
            }
        }
        if (becameSynced) {
            log.debug("{}: synced with {} objects", name, indexer.size());
            emitStatus(SYNCED);
        }
    }

    /** Drains the FIFO one entry at a time, so that what is still queued keeps coalescing. */
    private final class ApplyLoop extends BaseSubscriber<FifoEntry<T>> {

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            request(1);
        }

        @Override
        protected void hookOnNext(FifoEntry<T> entry) {
            try {
                apply(entry);
            } catch (RuntimeException e) {
                String what = entry instanceof FifoEntry.Deltas<T> d ? "the deltas of " + d.key() : "a relist";
                log.error("{}: failed to apply {}; skipping it", name, what, e);
            }
            request(1);
        }

        @Override
        protected void hookOnError(Throwable error) {
            log.error("{}: the apply loop failed; the cache no longer changes", name, error);
        }
    }

    private final class Lifecycle implements Disposable {

        @Override
        public void dispose() {
            stop();
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
        private Scheduler deliveryScheduler;
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

        /** Paging, streaming list, watch timeouts, backoff. The spec's selectors replace the options' ones. */
        public Builder<T> reflectorOptions(ReflectorOptions reflectorOptions) {
            this.reflectorOptions = Objects.requireNonNull(reflectorOptions, "reflectorOptions");
            return this;
        }

        /** Runs the resync checks and the reflector's delays and timeouts; the clock. Default {@link Schedulers#parallel()}. */
        public Builder<T> scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /** Provides each handler's worker. Default: the {@link #scheduler(Scheduler) scheduler}. */
        public Builder<T> deliveryScheduler(Scheduler deliveryScheduler) {
            this.deliveryScheduler = Objects.requireNonNull(deliveryScheduler, "deliveryScheduler");
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
