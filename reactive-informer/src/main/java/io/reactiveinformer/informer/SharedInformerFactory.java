package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.cache.IndexFunction;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Creates and owns {@link SharedIndexInformer}s, at most one per {@link InformerSpec} (type, namespace,
 * selectors, transform), so that every part of an application watching the same thing shares one
 * list/watch and one cache (client-go's {@code SharedInformerFactory}).
 *
 * <p>Thread-safe: all methods may be called from any thread; they take a short internal lock and never
 * wait for the server.
 */
public final class SharedInformerFactory {

    private final ListerWatcherSource source;
    private final Scheduler scheduler;
    private final Scheduler deliveryScheduler;
    private final Scheduler blockingScheduler;
    private final Duration defaultResyncPeriod;
    private final ReflectorOptions reflectorOptions;
    private final int syncFailureThreshold;
    private final InformerMetrics.Provider metrics;
    private final String namespace;

    /** Guards the fields below. Private, not this factory's monitor: the factory is handed to users. */
    private final Object lock = new Object();
    private final Map<InformerSpec<?>, SharedIndexInformer<?>> informers = new LinkedHashMap<>();
    private final Map<SharedIndexInformer<?>, Disposable> started = new LinkedHashMap<>();
    private boolean shutDown;

    private SharedInformerFactory(Builder builder) {
        this.source = builder.source;
        this.scheduler = builder.scheduler;
        this.deliveryScheduler = builder.deliveryScheduler != null ? builder.deliveryScheduler
                : builder.schedulerSet ? builder.scheduler : DeliveryScheduler.shared();
        this.blockingScheduler = builder.blockingScheduler;
        this.defaultResyncPeriod = builder.defaultResyncPeriod;
        this.reflectorOptions = builder.reflectorOptions;
        this.syncFailureThreshold = builder.syncFailureThreshold;
        this.metrics = builder.metrics;
        this.namespace = builder.namespace;
    }

    /** A factory whose informers list and watch with {@code source}. */
    public static Builder builder(ListerWatcherSource source) {
        return new Builder(source);
    }

    /**
     * A factory whose informers list and watch through {@code client}; when the kubeconfig context
     * sets a namespace ({@link io.reactiveinformer.config.ClientConfig#contextNamespace()}), informers of
     * namespaced resources watch only it unless their spec names another (see {@link Builder#namespace}).
     */
    public static Builder builder(KubernetesClient client) {
        return new Builder(ListerWatcherSource.of(client)).namespace(client.config().contextNamespace().orElse(null));
    }

    /** The informer of every {@code type} object in all namespaces. */
    public <T extends KubernetesObject> SharedIndexInformer<T> informer(Class<T> type) {
        return informer(InformerSpec.of(type));
    }

    /**
     * The informer of every object of {@code resource} in all namespaces: a custom resource with its own
     * POJO, or any resource as {@link io.reactiveinformer.api.DynamicObject}s
     * ({@link ResourceType#dynamic}). Started, synced and shut down with the factory's others.
     */
    public <T extends KubernetesObject> SharedIndexInformer<T> informer(ResourceType<T> resource) {
        return informer(InformerSpec.of(resource));
    }

    /**
     * The metadata-only informer of an official model class's objects in all namespaces
     * ({@link InformerSpec#metadataOnly(Class)}): it caches {@link PartialObjectMetadata}, and is
     * another informer than {@code informer(model)}.
     */
    public SharedIndexInformer<PartialObjectMetadata> metadataInformer(Class<? extends KubernetesObject> model) {
        return informer(InformerSpec.metadataOnly(model));
    }

    /** The metadata-only informer of {@code resource}'s objects in all namespaces. */
    public SharedIndexInformer<PartialObjectMetadata> metadataInformer(ResourceType<?> resource) {
        return informer(InformerSpec.metadataOnly(resource));
    }

    /** The informer for {@code spec}: the existing one, or a new one (not started) built from the factory's defaults. */
    public <T extends KubernetesObject> SharedIndexInformer<T> informer(InformerSpec<T> spec) {
        return informer(spec, Map.of());
    }

    /**
     * As {@link #informer(InformerSpec)}; a new informer's cache gets {@code indexers}, an existing one
     * gets those it lacks. Adding them to an existing informer runs the new index functions over its whole
     * cache on the calling thread, holding the factory's lock and the cache's write lock (as client-go does
     * under its {@code startedLock}): other {@code informer(..)} calls and the informer's cache updates wait
     * meanwhile, so call it from a thread that may wait (not an event loop) and keep index functions cheap.
     */
    public <T extends KubernetesObject> SharedIndexInformer<T> informer(InformerSpec<T> spec,
                                                                        Map<String, IndexFunction<T>> indexers) {
        synchronized (lock) {
            return informerLocked(spec, indexers);
        }
    }

    @SuppressWarnings("unchecked")
    private <T extends KubernetesObject> SharedIndexInformer<T> informerLocked(InformerSpec<T> spec,
                                                                               Map<String, IndexFunction<T>> indexers) {
        Objects.requireNonNull(spec, "spec");
        if (shutDown) {
            throw new IllegalStateException("the informer factory is shut down");
        }
        if (namespace != null && spec.namespace() == null && isNamespaced(spec)) {
            spec = spec.inNamespace(namespace);
        }
        SharedIndexInformer<T> informer = (SharedIndexInformer<T>) informers.get(spec);
        if (informer == null) {
            ListerWatcher<T> listerWatcher = spec.isMetadataOnly()
                    ? (ListerWatcher<T>) source.metadataListerWatcher(spec.metadataOf(), spec.namespace(),
                            spec.labelSelector(), spec.fieldSelector())
                    : spec.resource() != null
                            ? source.listerWatcher((ResourceType<T>) spec.resource(), spec.namespace(),
                                    spec.labelSelector(), spec.fieldSelector())
                            : source.listerWatcher(spec.type(), spec.namespace(), spec.labelSelector(),
                                    spec.fieldSelector());
            informer = SharedIndexInformer.builder(spec, listerWatcher)
                    .reflectorOptions(reflectorOptions)
                    .scheduler(scheduler)
                    .deliveryScheduler(deliveryScheduler)
                    .blockingScheduler(blockingScheduler)
                    .resyncPeriod(defaultResyncPeriod)
                    .syncFailureThreshold(syncFailureThreshold)
                    .metrics(metrics)
                    .indexers(indexers)
                    .build();
            informers.put(spec, informer);
        } else {
            Map<String, IndexFunction<T>> missing = new LinkedHashMap<>(indexers);
            missing.keySet().removeAll(informer.indexer().indexNames());
            informer.indexer().addIndexers(missing);
        }
        return informer;
    }

    private static boolean isNamespaced(InformerSpec<?> spec) {
        if (spec.resource() != null) {
            return spec.resource().namespaced();
        }
        try {
            return ResourceType.of(spec.type()).namespaced();
        } catch (IllegalArgumentException notBuiltIn) {
            return true; // a source that knows the type by class alone: its namespace applies like a model's
        }
    }

    /** Starts every informer not started yet; idempotent. Informers created later need another call. */
    public void start() {
        synchronized (lock) {
            if (shutDown) {
                return;
            }
            for (SharedIndexInformer<?> informer : informers.values()) {
                started.computeIfAbsent(informer, SharedIndexInformer::start);
            }
        }
    }

    /**
     * Completes when every informer started so far has synced. Fails when one cannot sync, with an
     * {@link InformerSyncException} naming it; when several cannot, the others' are suppressed in it.
     */
    public Mono<Void> waitForCacheSync() {
        List<Mono<Void>> waits = new ArrayList<>();
        synchronized (lock) {
            for (SharedIndexInformer<?> informer : started.keySet()) {
                waits.add(informer.hasSynced());
            }
        }
        return Mono.whenDelayError(waits).onErrorMap(SharedInformerFactory::firstNamed);
    }

    /** {@code whenDelayError} combines several failures into a composite; report the first, naming the informer. */
    private static Throwable firstNamed(Throwable error) {
        List<Throwable> all = reactor.core.Exceptions.unwrapMultiple(error);
        Throwable first = all.get(0);
        for (int i = 1; i < all.size(); i++) {
            first.addSuppressed(all.get(i));
        }
        return first;
    }

    /**
     * Stops every informer now (cancelling their lists and watches, which releases their connections)
     * and refuses new ones: the work is done when this method returns, whether or not the returned
     * {@code Mono} is subscribed. The {@code Mono} only lets a reactive caller chain on it; it
     * completes at once. Calling this again does nothing more.
     */
    public Mono<Void> shutdown() {
        List<Disposable> stopping;
        synchronized (lock) {
            shutDown = true;
            stopping = new ArrayList<>(started.values());
        }
        stopping.forEach(Disposable::dispose);
        return Mono.empty();
    }

    /** The informers created so far, in creation order. */
    public List<SharedIndexInformer<?>> informers() {
        synchronized (lock) {
            return List.copyOf(informers.values());
        }
    }

    /** Configures a {@link SharedInformerFactory}. Not thread-safe. */
    public static final class Builder {

        private final ListerWatcherSource source;
        private Scheduler scheduler = Schedulers.parallel();
        private boolean schedulerSet;
        private Scheduler deliveryScheduler;
        private Scheduler blockingScheduler = Schedulers.boundedElastic();
        private Duration defaultResyncPeriod = Duration.ZERO;
        private ReflectorOptions reflectorOptions = ReflectorOptions.defaults();
        private int syncFailureThreshold = 3;
        private InformerMetrics.Provider metrics = InformerMetrics.Provider.noop();
        private String namespace;

        private Builder(ListerWatcherSource source) {
            this.source = Objects.requireNonNull(source, "source");
        }

        /** See {@link SharedIndexInformer.Builder#scheduler}. */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            this.schedulerSet = true;
            return this;
        }

        /** See {@link SharedIndexInformer.Builder#deliveryScheduler}. */
        public Builder deliveryScheduler(Scheduler deliveryScheduler) {
            this.deliveryScheduler = Objects.requireNonNull(deliveryScheduler, "deliveryScheduler");
            return this;
        }

        /** See {@link SharedIndexInformer.Builder#blockingScheduler}. */
        public Builder blockingScheduler(Scheduler blockingScheduler) {
            this.blockingScheduler = Objects.requireNonNull(blockingScheduler, "blockingScheduler");
            return this;
        }

        /** Every informer's resync check period; see {@link SharedIndexInformer.Builder#resyncPeriod}. */
        public Builder defaultResyncPeriod(Duration defaultResyncPeriod) {
            this.defaultResyncPeriod = Objects.requireNonNull(defaultResyncPeriod, "defaultResyncPeriod");
            return this;
        }

        /**
         * Every informer's paging, streaming list, watch timeouts and backoff. Default
         * {@link ReflectorOptions#defaults()}: streaming lists, falling back to LIST on a server without them.
         */
        public Builder reflectorOptions(ReflectorOptions reflectorOptions) {
            this.reflectorOptions = Objects.requireNonNull(reflectorOptions, "reflectorOptions");
            return this;
        }

        /** See {@link SharedIndexInformer.Builder#syncFailureThreshold}. */
        public Builder syncFailureThreshold(int attempts) {
            this.syncFailureThreshold = attempts;
            return this;
        }

        public Builder metrics(InformerMetrics.Provider metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * The namespace that informers of namespaced resources watch when their spec names none;
         * {@code null} for all namespaces. {@link #builder(KubernetesClient)} sets the kubeconfig
         * context's namespace.
         */
        public Builder namespace(String namespace) {
            this.namespace = namespace == null || namespace.isEmpty() ? null : namespace;
            return this;
        }

        public SharedInformerFactory build() {
            return new SharedInformerFactory(this);
        }
    }
}
