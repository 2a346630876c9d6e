package io.reactiveinformer.watch;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.openapi.models.V1StatusCause;
import io.kubernetes.client.openapi.models.V1StatusDetails;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.publisher.SynchronousSink;
import reactor.core.scheduler.Scheduler;

/**
 * One subscription to {@link Reflector#events()}: the list/watch state machine and its state.
 *
 * <p>Each attempt (a list, a streaming list or a watch) is one finite {@code Flux} that emits its
 * events, converts its own failure into a {@link ReflectorEvent.Failed}, and records which attempt comes
 * next and after which delay; {@link #events()} repeats attempts forever. The fields are touched only
 * from signals of the current attempt, which Reactive Streams serializes, so they need no locking.
 */
final class ReflectorRun<T extends KubernetesObject> {

    private static final Logger log = LoggerFactory.getLogger(Reflector.class);

    /** A watch closing this soon without any event means something is wrong (client-go: relist). */
    static final Duration SHORT_WATCH = Duration.ofSeconds(1);
    static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";
    /** A watch the server ends this much before the timeout it was asked for was ended for another reason. */
    private static final Duration EARLY_CLOSE_SLACK = Duration.ofSeconds(1);
    private static final String CAUSE_RESOURCE_VERSION_TOO_LARGE = "ResourceVersionTooLarge";

    private enum Step { LIST, WATCH }

    private final String name;
    private final ListerWatcher<T> listerWatcher;
    private final ReflectorOptions options;
    private final Scheduler scheduler;
    private final DoubleSupplier random;
    private final BackoffTimer backoff;
    private final ListPager<T> pager;
    private final ListOptions listSelectors;
    private final StoreRollbackDetector rollback = new StoreRollbackDetector();

    private String lastSyncResourceVersion = "";
    private boolean resourceVersionUnavailable;
    private boolean paginatedResult;
    private boolean streamingListUnsupported;
    /** The last streaming list ended early, before its initial events: the next list is a LIST (client-go too). */
    private boolean listOnce;
    private int consecutiveFailures;
    private Step next = Step.LIST;
    private Duration delay = Duration.ZERO;

    ReflectorRun(String name, ListerWatcher<T> listerWatcher, ReflectorOptions options, Scheduler scheduler,
                 DoubleSupplier random) {
        this.name = name;
        this.listerWatcher = listerWatcher;
        this.options = options;
        this.scheduler = scheduler;
        this.random = random;
        this.backoff = new BackoffTimer(options.backoff(), scheduler, random);
        this.pager = new ListPager<>(name, listerWatcher);
        this.listSelectors = ListOptions.none().withSelectors(options.labelSelector(), options.fieldSelector());
    }

    Flux<ReflectorEvent<T>> events() {
        return Flux.defer(this::step).repeat();
    }

    private Flux<ReflectorEvent<T>> step() {
        Duration wait = delay;
        delay = Duration.ZERO;
        Flux<ReflectorEvent<T>> attempt = Flux.defer(this::attempt);
        return wait.isZero() ? attempt : Mono.delay(wait, scheduler).thenMany(attempt);
    }

    private Flux<ReflectorEvent<T>> attempt() {
        if (next == Step.WATCH) {
            return watch();
        }
        if (options.streamingList() && !streamingListUnsupported && !listOnce) {
            return streamingList();
        }
        listOnce = false;
        return list();
    }

    // ---- list

    private Flux<ReflectorEvent<T>> list() {
        String resourceVersion = relistResourceVersion();
        Integer limit = pageLimit(resourceVersion);
        log.debug("{}: listing at resourceVersion \"{}\", page size {}", name, resourceVersion,
                limit == null ? "unlimited" : limit);
        return pager.list(listSelectors, resourceVersion, limit)
                .map(gathered -> listed(resourceVersion, gathered))
                .flux()
                .onErrorResume(ReflectorRun::recoverable, e -> listFailed(clientException(e), resourceVersion));
    }

    /** Where the next list starts: a streaming list asks for "" (consistent) rather than "0" the first time. */
    private String nextListResourceVersion() {
        if (options.streamingList() && !streamingListUnsupported && !listOnce) {
            return resourceVersionUnavailable ? "" : lastSyncResourceVersion;
        }
        return relistResourceVersion();
    }

    private String relistResourceVersion() {
        if (resourceVersionUnavailable) {
            return "";
        }
        return lastSyncResourceVersion.isEmpty() ? "0" : lastSyncResourceVersion;
    }

    private Integer pageLimit(String resourceVersion) {
        Integer pageSize = options.pageSize();
        if (pageSize != null) {
            return pageSize == 0 ? null : pageSize;
        }
        boolean specificVersion = !resourceVersion.isEmpty() && !"0".equals(resourceVersion);
        return specificVersion && !paginatedResult ? null : ReflectorOptions.DEFAULT_PAGE_SIZE;
    }

    private ReflectorEvent<T> listed(String requestedVersion, ListPager.Gathered<T> gathered) {
        if ("0".equals(requestedVersion) && gathered.paginated) {
            // The server paginated a list at "0": it has no watch cache for this resource, so later lists
            // at a specific version would go to etcd anyway; keep them paginated.
            paginatedResult = true;
        }
        String listedVersion = gathered.resourceVersion == null ? "" : gathered.resourceVersion;
        synced(listedVersion);
        rollback.listed(listedVersion);
        log.debug("{}: listed {} objects at resourceVersion \"{}\"", name, gathered.items.size(), listedVersion);
        return new ReflectorEvent.Listed<>(gathered.items, listedVersion);
    }

    private Flux<ReflectorEvent<T>> listFailed(KubernetesClientException error, String resourceVersion) {
        if (isResourceVersionUnavailable(error)) {
            resourceVersionUnavailable = true;
            if (!resourceVersion.isEmpty()) {
                return fail(error, Step.LIST, Duration.ZERO);
            }
        }
        return fail(error, Step.LIST, retryDelay(error));
    }

    // ---- streaming list

    private Flux<ReflectorEvent<T>> streamingList() {
        String resourceVersion = nextListResourceVersion();
        WatchOptions request = watchOptions(resourceVersion).withInitialEvents();
        log.debug("{}: streaming list from resourceVersion \"{}\"", name, resourceVersion);
        InitialEvents<T> initial = new InitialEvents<>();
        WatchProgress progress = new WatchProgress(scheduler.now(TimeUnit.MILLISECONDS), request.timeoutSeconds());
        return idleGuarded(listerWatcher.watch(request))
                .<ReflectorEvent<T>>handle((event, sink) -> {
                    if (initial.isComplete()) {
                        emit(event, progress, sink);
                    } else if (initial.offer(event)) {
                        sink.next(streamed(initial));
                    }
                })
                .concatWith(Flux.defer(() -> initial.isComplete()
                        ? watchClosed(resourceVersion, progress)
                        : streamingListClosed(progress)))
                .onErrorResume(ReflectorRun::recoverable, e -> initial.isComplete()
                        ? watchFailed(clientException(e))
                        : streamingListFailed(clientException(e), resourceVersion));
    }

    private ReflectorEvent<T> streamed(InitialEvents<T> initial) {
        List<T> items = initial.drain();
        synced(initial.resourceVersion);
        rollback.listed(initial.resourceVersion);
        log.debug("{}: streamed {} objects up to resourceVersion \"{}\"", name, items.size(), initial.resourceVersion);
        return new ReflectorEvent.Listed<>(items, initial.resourceVersion);
    }

    private Flux<ReflectorEvent<T>> streamingListFailed(KubernetesClientException error, String resourceVersion) {
        if (error instanceof KubernetesApiException api && rejectsStreamingList(api)) {
            return fallBackToList("the server rejected it: " + api.getMessage());
        }
        return listFailed(error, resourceVersion);
    }

    /** A refusal of the request itself (400, 422, ...), not of access to the resource nor of the version. */
    private static boolean rejectsStreamingList(KubernetesApiException error) {
        return !error.isRetriable()
                && !(error instanceof KubernetesApiException.Unauthorized)
                && !(error instanceof KubernetesApiException.Forbidden)
                && !(error instanceof KubernetesApiException.NotFound)
                && !(error instanceof KubernetesApiException.Gone);
    }

    /**
     * A stream that ended before the {@value #INITIAL_EVENTS_END} bookmark: a server that ignores
     * {@code sendInitialEvents} serves it as a plain watch until the timeout asked for, so only that gives up
     * streaming for good; a stream ended sooner (a restart, a cut connection) falls back to LIST once.
     */
    private Flux<ReflectorEvent<T>> streamingListClosed(WatchProgress progress) {
        long lasted = scheduler.now(TimeUnit.MILLISECONDS) - progress.startedMillis;
        if (lasted + EARLY_CLOSE_SLACK.toMillis() >= progress.timeoutMillis) {
            return fallBackToList("the server watched for its whole timeout without the " + INITIAL_EVENTS_END
                    + " bookmark: it ignores sendInitialEvents");
        }
        listOnce = true;
        next = Step.LIST;
        log.info("{}: the streaming list ended after {} ms before its {} bookmark; listing once instead", name, lasted,
                INITIAL_EVENTS_END);
        return Flux.empty();
    }

    private Flux<ReflectorEvent<T>> fallBackToList(String why) {
        streamingListUnsupported = true;
        log.info("{}: streaming list unavailable ({}); using LIST from now on", name, why);
        next = Step.LIST;
        return Flux.empty();
    }

    // ---- watch

    private Flux<ReflectorEvent<T>> watch() {
        String resourceVersion = lastSyncResourceVersion;
        WatchOptions request = watchOptions(resourceVersion);
        log.debug("{}: watching from resourceVersion \"{}\" for {} s", name, resourceVersion, request.timeoutSeconds());
        WatchProgress progress = new WatchProgress(scheduler.now(TimeUnit.MILLISECONDS), request.timeoutSeconds());
        RollbackProbe probe = options.rollbackProbeDelay() != null && rollback.probeDue()
                ? new RollbackProbe(rollback.newestSynced()) : null;
        Flux<WatchEvent<T>> events = idleGuarded(listerWatcher.watch(request));
        return (probe == null ? events : rollbackGuarded(events, probe))
                .<ReflectorEvent<T>>handle((event, sink) -> emit(event, progress, sink))
                .concatWith(Flux.defer(() -> probe != null && probe.rolledBackTo != null
                        ? storeRolledBack(probe.rolledBackTo)
                        : watchClosed(resourceVersion, progress)))
                .onErrorResume(ReflectorRun::recoverable, e -> watchFailed(clientException(e)));
    }

    /**
     * Ends the watch when it stays silent for the probe delay and a {@code limit=1} consistent LIST then finds
     * the store older than what was synced (see {@link StoreRollbackDetector}); the first event cancels the
     * probe, before or during its request. A failed probe leaves the watch alone.
     */
    private Flux<WatchEvent<T>> rollbackGuarded(Flux<WatchEvent<T>> watch, RollbackProbe probe) {
        ListOptions current = listSelectors.withLimit(1).withResourceVersion("", null);
        return Flux.defer(() -> {
            Sinks.Empty<Void> firstEvent = Sinks.empty();
            Mono<String> rolledBack = Mono.delay(options.rollbackProbeDelay(), scheduler)
                    .then(listerWatcher.list(current))
                    .map(list -> list.resourceVersion() == null ? "" : list.resourceVersion())
                    .doOnNext(version -> log.debug("{}: quiet re-watch; the store is at resourceVersion \"{}\"", name,
                            version))
                    .filter(version -> StoreRollbackDetector.isOlder(version, probe.newestSynced))
                    .doOnNext(version -> probe.rolledBackTo = version)
                    .onErrorResume(Exception.class, e -> {
                        log.debug("{}: the rollback probe failed: {}", name, e.toString());
                        return Mono.empty();
                    })
                    .takeUntilOther(firstEvent.asMono());
            // only a rollback may end the watch: a probe that found nothing (or was cancelled) must not
            return watch.doOnNext(event -> firstEvent.tryEmitEmpty())
                    .takeUntilOther(rolledBack.concatWith(Mono.never()));
        });
    }

    private Flux<ReflectorEvent<T>> storeRolledBack(String storeVersion) {
        rollback.rolledBack(storeVersion);
        // relist from the store as it is now: a list at our (future) version would wait or fail
        resourceVersionUnavailable = true;
        log.warn("{}: the server's store is at resourceVersion \"{}\", older than \"{}\" already synced: it went back "
                + "in time (etcd restored from a backup?); relisting", name, storeVersion, lastSyncResourceVersion);
        return fail(new ReflectorException(ReflectorException.Reason.STORE_ROLLED_BACK, "the store is at resourceVersion \""
                + storeVersion + "\", older than \"" + lastSyncResourceVersion + "\" already synced", null),
                Step.LIST, Duration.ZERO);
    }

    private WatchOptions watchOptions(String resourceVersion) {
        long min = options.minWatchTimeout().getSeconds();
        long timeout = min + (long) (min * BackoffTimer.unit(random.getAsDouble()));
        return WatchOptions.from(resourceVersion)
                .withSelectors(options.labelSelector(), options.fieldSelector())
                .withTimeoutSeconds((int) Math.min(Integer.MAX_VALUE, timeout));
    }

    /**
     * Fails the watch with {@link ReflectorException.Reason#WATCH_IDLE} once no event arrived for the idle
     * timeout. Rather than rescheduling a timer on every event (the cost of {@code Flux.timeout}), each
     * event only records its time, and one timer at a time checks it: about one timer per idle period.
     */
    private Flux<WatchEvent<T>> idleGuarded(Flux<WatchEvent<T>> watch) {
        long idleMillis = options.idleTimeout().toMillis();
        return Flux.defer(() -> {
            IdleWatchdog watchdog = new IdleWatchdog(scheduler.now(TimeUnit.MILLISECONDS));
            Mono<Long> expired = Mono.defer(() -> {
                long remaining = watchdog.lastEventMillis + idleMillis - scheduler.now(TimeUnit.MILLISECONDS);
                return remaining <= 0 ? Mono.just(remaining)
                        : Mono.delay(Duration.ofMillis(remaining), scheduler).then(Mono.<Long>empty());
            }).repeatWhenEmpty(checks -> checks).doOnNext(ignored -> watchdog.expired = true);
            return watch.doOnNext(event -> watchdog.lastEventMillis = scheduler.now(TimeUnit.MILLISECONDS))
                    .takeUntilOther(expired)
                    .concatWith(Flux.defer(() -> watchdog.expired
                            ? Flux.error(new ReflectorException(ReflectorException.Reason.WATCH_IDLE,
                                    "no watch event or bookmark for " + options.idleTimeout()
                                            + "; presuming the connection dead", null))
                            : Flux.empty()));
        });
    }

    private void emit(WatchEvent<T> event, WatchProgress progress, SynchronousSink<ReflectorEvent<T>> sink) {
        progress.events++;
        consecutiveFailures = 0;
        String resourceVersion = resourceVersionOf(event.object());
        rollback.observed(resourceVersion);
        boolean hasVersion = resourceVersion != null && !resourceVersion.isEmpty();
        if (hasVersion) {
            lastSyncResourceVersion = resourceVersion;
        }
        switch (event.type()) {
            case ADDED, MODIFIED -> sink.next(new ReflectorEvent.Applied<>(event.type(), event.object()));
            case DELETED -> sink.next(new ReflectorEvent.Deleted<>(event.object()));
            case BOOKMARK -> {
                if (hasVersion) {
                    sink.next(new ReflectorEvent.Bookmark<>(resourceVersion));
                }
            }
        }
    }

    private Flux<ReflectorEvent<T>> watchClosed(String resourceVersion, WatchProgress progress) {
        long lasted = scheduler.now(TimeUnit.MILLISECONDS) - progress.startedMillis;
        if (progress.events == 0 && lasted < SHORT_WATCH.toMillis()) {
            return fail(new ReflectorException(ReflectorException.Reason.WATCH_TOO_SHORT,
                    "the watch from resourceVersion \"" + resourceVersion + "\" closed after " + lasted
                            + " ms without an event", null), Step.LIST, backoff.next());
        }
        log.debug("{}: the server closed the watch after {} ms and {} events; watching again from \"{}\"",
                name, lasted, progress.events, lastSyncResourceVersion);
        if (lasted + EARLY_CLOSE_SLACK.toMillis() < progress.timeoutMillis) {
            // not the timeout we asked for: a restarting server or a re-initialized watch cache
            rollback.connectionLost();
        }
        next = Step.WATCH;
        return Flux.empty();
    }

    private Flux<ReflectorEvent<T>> watchFailed(KubernetesClientException error) {
        if (isResourceVersionUnavailable(error)) {
            // A healthy server answered that our version is out of its window (compacted away, or not reached
            // yet): relist after the initial delay, not after the backoff that earlier outages grew (up to a
            // minute, and the cache stale all that time). A version it has not reached is relisted from "".
            resourceVersionUnavailable = !(error instanceof KubernetesApiException.Gone);
            return fail(error, Step.LIST, backoff.initial());
        }
        boolean rewatch = canRewatch(error);
        if (rewatch) {
            rollback.connectionLost();
        }
        return fail(error, rewatch ? Step.WATCH : Step.LIST, retryDelay(error));
    }

    /** Failures that say nothing about the state we hold: the server or the path to it is unwell. */
    private static boolean canRewatch(KubernetesClientException error) {
        if (isResourceVersionUnavailable(error)) {
            return false;
        }
        return error instanceof KubernetesApiException.TooManyRequests
                || error instanceof KubernetesApiException.ServerError
                || error instanceof TransportException
                || error instanceof ReflectorException r && r.reason() == ReflectorException.Reason.WATCH_IDLE;
    }

    // ---- shared

    private void synced(String resourceVersion) {
        lastSyncResourceVersion = resourceVersion;
        resourceVersionUnavailable = false;
        consecutiveFailures = 0;
        next = Step.WATCH;
    }

    private Flux<ReflectorEvent<T>> fail(KubernetesClientException error, Step then, Duration retryIn) {
        consecutiveFailures++;
        next = then;
        delay = retryIn;
        if (log.isInfoEnabled()) {
            String action = then == Step.WATCH
                    ? "watching again from resourceVersion \"" + lastSyncResourceVersion + "\""
                    : "listing again at resourceVersion \"" + nextListResourceVersion() + "\"";
            log.info("{}: {} (failure {}); {} in {} ms", name, error.getMessage(), consecutiveFailures, action,
                    retryIn.toMillis());
        }
        return Flux.just(new ReflectorEvent.Failed<>(error, consecutiveFailures, retryIn, lastSyncResourceVersion));
    }

    /** The server's Retry-After when it sent one, bounded by the backoff cap; else the next backoff. */
    private Duration retryDelay(KubernetesClientException error) {
        if (error instanceof KubernetesApiException api) {
            Optional<Duration> retryAfter = api.retryAfter().filter(d -> !d.isNegative());
            if (retryAfter.isPresent()) {
                Duration cap = options.backoff().cap();
                return retryAfter.get().compareTo(cap) > 0 ? cap : retryAfter.get();
            }
        }
        return backoff.next();
    }

    /** JVM errors (and BlockHound's) must surface, not be retried. */
    private static boolean recoverable(Throwable error) {
        return error instanceof Exception;
    }

    private static KubernetesClientException clientException(Throwable error) {
        Throwable unwrapped = Exceptions.unwrap(error);
        if (unwrapped instanceof KubernetesClientException clientException) {
            return clientException;
        }
        return new ReflectorException(ReflectorException.Reason.UNEXPECTED_ERROR,
                "the lister-watcher failed with " + unwrapped, unwrapped);
    }

    /** 410 Gone/Expired, or a version newer than the server has seen (client-go: "too large resource version"). */
    static boolean isResourceVersionUnavailable(KubernetesClientException error) {
        if (error instanceof KubernetesApiException.Gone) {
            return true;
        }
        if (!(error instanceof KubernetesApiException api) || api.code() != 504) {
            return false;
        }
        Optional<V1Status> status = api.status();
        boolean tooLargeCause = status.map(V1Status::getDetails)
                .map(V1StatusDetails::getCauses)
                .map(causes -> causes.stream().map(V1StatusCause::getReason)
                        .anyMatch(CAUSE_RESOURCE_VERSION_TOO_LARGE::equals))
                .orElse(false);
        return tooLargeCause || status.map(V1Status::getMessage)
                .map(message -> message.contains("Too large resource version"))
                .orElse(false);
    }

    static String resourceVersionOf(KubernetesObject object) {
        V1ObjectMeta metadata = object.getMetadata();
        return metadata == null ? null : metadata.getResourceVersion();
    }

    /** Written by the watch's signals, read by the idle timer on a scheduler thread. */
    private static final class IdleWatchdog {
        volatile long lastEventMillis;
        volatile boolean expired;

        IdleWatchdog(long startedMillis) {
            this.lastEventMillis = startedMillis;
        }
    }

    private static final class WatchProgress {
        final long startedMillis;
        final long timeoutMillis;
        int events;

        WatchProgress(long startedMillis, Integer timeoutSeconds) {
            this.startedMillis = startedMillis;
            this.timeoutMillis = timeoutSeconds == null ? Long.MAX_VALUE : timeoutSeconds * 1000L;
        }
    }

    /** One re-watch's probe: the version synced when it started, and what the probe found, if older. */
    private static final class RollbackProbe {
        final long newestSynced;
        /** Written by the probe (any thread) before it ends the watch, read after the watch ended. */
        volatile String rolledBackTo;

        RollbackProbe(long newestSynced) {
            this.newestSynced = newestSynced;
        }
    }

    /**
     * The initial events of a streaming list, keyed like a store so that a MODIFIED or DELETED among them
     * (which servers do not send, but nothing forbids) still yields the right state.
     */
    static final class InitialEvents<T extends KubernetesObject> {
        private Map<String, T> objects = new LinkedHashMap<>();
        String resourceVersion;

        boolean isComplete() {
            return objects == null;
        }

        /** Takes one event; {@code true} when it was the bookmark that ends the initial events. */
        boolean offer(WatchEvent<T> event) {
            T object = event.object();
            switch (event.type()) {
                case ADDED, MODIFIED -> objects.put(key(object), object);
                case DELETED -> objects.remove(key(object));
                case BOOKMARK -> {
                    V1ObjectMeta metadata = object.getMetadata();
                    if (metadata != null && metadata.getAnnotations() != null
                            && "true".equals(metadata.getAnnotations().get(INITIAL_EVENTS_END))) {
                        resourceVersion = metadata.getResourceVersion() == null ? "" : metadata.getResourceVersion();
                        return true;
                    }
                }
            }
            return false;
        }

        /** The gathered objects; releases them so the stream that continues as a watch does not hold them. */
        List<T> drain() {
            List<T> items = new ArrayList<>(objects.values());
            objects = null;
            return items;
        }

        private static String key(KubernetesObject object) {
            V1ObjectMeta metadata = object.getMetadata();
            if (metadata == null) {
                return "";
            }
            String namespace = metadata.getNamespace();
            return namespace == null || namespace.isEmpty() ? metadata.getName() : namespace + "/" + metadata.getName();
        }
    }
}
