package io.reactiveinformer.watch;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 *
 * <p>This class holds the state and the {@code Flux} wiring; the decisions are pure functions of that
 * state: {@link ResourceVersionPolicy} (which version to list from, page sizes) and {@link FailurePolicy}
 * (re-watch or relist after a failure or a close, after which delay). {@link InitialEvents} gathers a
 * streaming list, {@link IdleWatchGuard} ends a silent watch, {@link ListPager} gathers a paged list and
 * {@link StoreRollbackDetector} notices a store that went back in time.
 */
final class ReflectorRun<T extends KubernetesObject> {

    private static final Logger log = LoggerFactory.getLogger(Reflector.class);

    /** The next attempt: a list (a LIST or a streaming list) or a watch. */
    enum Step { LIST, WATCH }

    private final String name;
    private final ListerWatcher<T> listerWatcher;
    private final ReflectorOptions options;
    private final Scheduler scheduler;
    private final DoubleSupplier random;
    /** Null when nothing is interned. */
    private final UnaryOperator<T> interner;
    /**
     * Set when the store went back in time: a resourceVersion then no longer names one state (the old timeline's
     * objects and the new one's may share it), so the consumer's instances must not stand in for listed objects
     * until a list is complete without them.
     */
    private boolean reuseSuspended;
    private final BackoffTimer backoff;
    private final ListPager<T> pager;
    private final StoreRollbackDetector rollback = new StoreRollbackDetector();
    private final ShardSelection selection;
    private final ShardFilter shard;
    /** The selection the current attempt lists or watches with; null before the first attempt. */
    private ShardSelection.Selected selected;
    private ListOptions listSelectors;

    private String lastSyncResourceVersion = "";
    private boolean resourceVersionUnavailable;
    private boolean paginatedResult;
    private boolean streamingListUnsupported;
    /** The last streaming list ended early, before its initial events: the next list is a LIST (client-go too). */
    private boolean listOnce;
    private int consecutiveFailures;
    private Step next = Step.LIST;
    private Duration delay = Duration.ZERO;

    ReflectorRun(String name, ListerWatcher<T> listerWatcher, ReflectorOptions options, ShardSelection selection,
                 Scheduler scheduler, DoubleSupplier random, UnaryOperator<T> interner) {
        this.name = name;
        this.listerWatcher = listerWatcher;
        this.options = options;
        this.scheduler = scheduler;
        this.random = random;
        this.interner = interner;
        this.backoff = new BackoffTimer(options.backoff(), scheduler, random);
        this.pager = new ListPager<>(name, listerWatcher);
        this.selection = selection;
        this.shard = new ShardFilter(name, null);
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

    /** The next attempt, ended early (and followed by a relist) when another shard selection is made meanwhile. */
    private Flux<ReflectorEvent<T>> attempt() {
        ShardSelection.Selected now = selection.selected();
        if (!now.equals(selected)) {
            if (selected != null) {
                log.debug("{}: shard selection {} ({}); relisting", name, now.number(), now.selector());
                next = Step.LIST;
            }
            selected = now;
            shard.select(now.selector());
            listSelectors = ListOptions.none().withSelectors(options.labelSelector(), options.fieldSelector())
                    .withShardSelector(now.selector());
        }
        return attemptOnce().takeUntilOther(selection.changedAfter(now.number()).publishOn(scheduler));
    }

    private Flux<ReflectorEvent<T>> attemptOnce() {
        if (selected.selector() != null && selected.selector().isNone()) {
            return nothingSelected();
        }
        if (next == Step.WATCH) {
            return watch();
        }
        if (streamsNextList()) {
            return streamingList();
        }
        listOnce = false;
        return list();
    }

    /** {@link ShardSelector#none()}: an empty list, then nothing until another selection ends the attempt. */
    private Flux<ReflectorEvent<T>> nothingSelected() {
        String resourceVersion = lastSyncResourceVersion;
        synced(resourceVersion);
        log.debug("{}: no shard selected; listing nothing", name);
        return Flux.<ReflectorEvent<T>>just(new ReflectorEvent.Listed<>(List.of(), resourceVersion, false,
                selected.number())).concatWith(Mono.never());
    }

    // ---- list

    private Flux<ReflectorEvent<T>> list() {
        String resourceVersion = ResourceVersionPolicy.list(lastSyncResourceVersion, resourceVersionUnavailable);
        Integer limit = ResourceVersionPolicy.pageLimit(options.pageSize(), resourceVersion, paginatedResult);
        log.debug("{}: listing at resourceVersion \"{}\", page size {}", name, resourceVersion,
                limit == null ? "unlimited" : limit);
        return pager.list(listSelectors, resourceVersion, limit, listInterner())
                .flatMapMany(gathered -> reusedAcrossTimelines(gathered.resourceVersion)
                        ? listedFromThePast(gathered.resourceVersion)
                        : Flux.just(listed(resourceVersion, gathered)))
                .onErrorResume(FailurePolicy::recoverable,
                        e -> listFailed(FailurePolicy.clientException(e), resourceVersion));
    }

    /** What the next list passes its objects through: the interner, unless there is none or reuse is suspended. */
    private UnaryOperator<T> listInterner() {
        return interner == null || reuseSuspended ? UnaryOperator.identity() : interner;
    }

    /**
     * Whether a list complete at {@code listedVersion} reused instances across a rollback of the store it did
     * not see coming (no quiet re-watch probed it): it is older than what was synced, so some reused instance
     * may be the old timeline's object under a resourceVersion the new timeline gave to another state.
     */
    private boolean reusedAcrossTimelines(String listedVersion) {
        return interner != null && !reuseSuspended && StoreRollbackDetector.isOlder(listedVersion, rollback.newestSynced());
    }

    /** Discards a list that {@linkplain #reusedAcrossTimelines reused instances across a rollback}; lists again at once without. */
    private Flux<ReflectorEvent<T>> listedFromThePast(String listedVersion) {
        reuseSuspended = true;
        resourceVersionUnavailable = true;
        log.warn("{}: listed at resourceVersion \"{}\", older than \"{}\" already synced: the server's store went "
                + "back in time (etcd restored from a backup?); listing again without reusing cached objects", name,
                listedVersion, lastSyncResourceVersion);
        return fail(new ReflectorException(ReflectorException.Reason.STORE_ROLLED_BACK, "listed at resourceVersion \""
                + listedVersion + "\", older than \"" + lastSyncResourceVersion + "\" already synced", null),
                Step.LIST, Duration.ZERO);
    }

    private boolean streamsNextList() {
        return options.streamingList() && !streamingListUnsupported && !listOnce;
    }

    /** Where the next list starts: a streaming list asks for "" (consistent) rather than "0" the first time. */
    private String nextListResourceVersion() {
        return streamsNextList()
                ? ResourceVersionPolicy.streamingList(lastSyncResourceVersion, resourceVersionUnavailable)
                : ResourceVersionPolicy.list(lastSyncResourceVersion, resourceVersionUnavailable);
    }

    private ReflectorEvent<T> listed(String requestedVersion, ListPager.Gathered<T> gathered) {
        if (ResourceVersionPolicy.revealsNoWatchCache(requestedVersion, gathered.paginated)) {
            paginatedResult = true;
        }
        String listedVersion = gathered.resourceVersion == null ? "" : gathered.resourceVersion;
        synced(listedVersion);
        rollback.listed(listedVersion);
        reuseSuspended = false;
        log.debug("{}: listed {} objects at resourceVersion \"{}\"", name, gathered.items.size(), listedVersion);
        shard.listed(gathered.shardSelector);
        List<T> items = shard.filteringLocally()
                ? gathered.items.stream().filter(shard::keep).toList()
                : gathered.items;
        return new ReflectorEvent.Listed<>(items, listedVersion, shard.filteringLocally(), selected.number());
    }

    private Flux<ReflectorEvent<T>> listFailed(KubernetesClientException error, String resourceVersion) {
        return failed(error, FailurePolicy.afterList(error, resourceVersion, resourceVersionUnavailable));
    }

    // ---- streaming list

    private Flux<ReflectorEvent<T>> streamingList() {
        String resourceVersion = nextListResourceVersion();
        WatchOptions request = watchOptions(resourceVersion).withInitialEvents();
        log.debug("{}: streaming list from resourceVersion \"{}\"", name, resourceVersion);
        InitialEvents<T> initial = new InitialEvents<>(listInterner());
        AtomicBoolean fromThePast = new AtomicBoolean();
        WatchProgress progress = new WatchProgress(scheduler.now(TimeUnit.MILLISECONDS), request.timeoutSeconds());
        return idleGuarded(listerWatcher.watch(request))
                .<ReflectorEvent<T>>handle((event, sink) -> {
                    if (initial.isComplete()) {
                        emit(event, progress, sink);
                    } else if (!outsideShard(event) && initial.offer(event)) {
                        if (reusedAcrossTimelines(initial.resourceVersion)) {
                            fromThePast.set(true);
                            sink.complete();
                        } else {
                            sink.next(streamed(initial));
                        }
                    }
                })
                .concatWith(Flux.defer(() -> fromThePast.get() ? listedFromThePast(initial.resourceVersion)
                        : initial.isComplete() ? watchClosed(resourceVersion, progress)
                        : streamingListClosed(progress)))
                .onErrorResume(FailurePolicy::recoverable, e -> initial.isComplete()
                        ? watchFailed(FailurePolicy.clientException(e))
                        : streamingListFailed(FailurePolicy.clientException(e), resourceVersion));
    }

    private ReflectorEvent<T> streamed(InitialEvents<T> initial) {
        List<T> items = initial.drain();
        synced(initial.resourceVersion);
        rollback.listed(initial.resourceVersion);
        reuseSuspended = false;
        log.debug("{}: streamed {} objects up to resourceVersion \"{}\"", name, items.size(), initial.resourceVersion);
        return new ReflectorEvent.Listed<>(items, initial.resourceVersion, shard.filteringLocally(), selected.number());
    }

    private Flux<ReflectorEvent<T>> streamingListFailed(KubernetesClientException error, String resourceVersion) {
        if (FailurePolicy.rejectsStreamingList(error)) {
            return fallBackToList("the server rejected it: " + error.getMessage());
        }
        return listFailed(error, resourceVersion);
    }

    /**
     * A stream that ended before the {@value InitialEvents#INITIAL_EVENTS_END} bookmark: gives up streaming for
     * good when the server ignores {@code sendInitialEvents} (see {@link FailurePolicy#streamingListIgnored}),
     * else falls back to LIST once.
     */
    private Flux<ReflectorEvent<T>> streamingListClosed(WatchProgress progress) {
        long lasted = scheduler.now(TimeUnit.MILLISECONDS) - progress.startedMillis;
        if (FailurePolicy.streamingListIgnored(lasted, progress.timeoutMillis)) {
            return fallBackToList("the server watched for its whole timeout without the "
                    + InitialEvents.INITIAL_EVENTS_END + " bookmark: it ignores sendInitialEvents");
        }
        listOnce = true;
        next = Step.LIST;
        log.info("{}: the streaming list ended after {} ms before its {} bookmark; listing once instead", name, lasted,
                InitialEvents.INITIAL_EVENTS_END);
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
                .onErrorResume(FailurePolicy::recoverable, e -> watchFailed(FailurePolicy.clientException(e)));
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
        reuseSuspended = true;
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
                .withShardSelector(selected.selector())
                .withTimeoutSeconds((int) Math.min(Integer.MAX_VALUE, timeout));
    }

    private Flux<WatchEvent<T>> idleGuarded(Flux<WatchEvent<T>> watch) {
        return IdleWatchGuard.guard(watch, options.idleTimeout(), scheduler);
    }

    private void emit(WatchEvent<T> event, WatchProgress progress, SynchronousSink<ReflectorEvent<T>> sink) {
        progress.events++;
        consecutiveFailures = 0;
        String resourceVersion = ResourceVersionPolicy.of(event.object());
        rollback.observed(resourceVersion);
        boolean hasVersion = resourceVersion != null && !resourceVersion.isEmpty();
        if (hasVersion) {
            lastSyncResourceVersion = resourceVersion;
        }
        if (outsideShard(event)) {
            return; // its resourceVersion still counts as progress (above): the watch resumes after it
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

    /** An object event the server should not have sent: its shard selector is ignored (see {@link ShardFilter}). */
    private boolean outsideShard(WatchEvent<T> event) {
        return event.type() != WatchEvent.Type.BOOKMARK && !shard.keep(event.object());
    }

    private Flux<ReflectorEvent<T>> watchClosed(String resourceVersion, WatchProgress progress) {
        long lasted = scheduler.now(TimeUnit.MILLISECONDS) - progress.startedMillis;
        FailurePolicy.WatchClose close = FailurePolicy.watchClosed(lasted, progress.events, progress.timeoutMillis);
        if (close == FailurePolicy.WatchClose.TOO_SHORT) {
            return fail(new ReflectorException(ReflectorException.Reason.WATCH_TOO_SHORT,
                    "the watch from resourceVersion \"" + resourceVersion + "\" closed after " + lasted
                            + " ms without an event", null), Step.LIST, backoff.next());
        }
        log.debug("{}: the server closed the watch after {} ms and {} events; watching again from \"{}\"",
                name, lasted, progress.events, lastSyncResourceVersion);
        if (close == FailurePolicy.WatchClose.EARLY) {
            rollback.connectionLost();
        }
        next = Step.WATCH;
        return Flux.empty();
    }

    private Flux<ReflectorEvent<T>> watchFailed(KubernetesClientException error) {
        return failed(error, FailurePolicy.afterWatch(error, resourceVersionUnavailable));
    }

    // ---- shared

    private void synced(String resourceVersion) {
        lastSyncResourceVersion = resourceVersion;
        resourceVersionUnavailable = false;
        consecutiveFailures = 0;
        next = Step.WATCH;
    }

    /** Applies the policy's {@code decision} on {@code error}. */
    private Flux<ReflectorEvent<T>> failed(KubernetesClientException error, FailurePolicy.Decision decision) {
        resourceVersionUnavailable = decision.resourceVersionUnavailable();
        if (decision.connectionLost()) {
            rollback.connectionLost();
        }
        Duration retryIn = switch (decision.delay()) {
            case NONE -> Duration.ZERO;
            case INITIAL -> backoff.initial();
            case RETRY -> retryDelay(error);
        };
        return fail(error, decision.next(), retryIn);
    }

    /**
     * The backoff's next delay, or the server's {@code Retry-After} when it is longer. The backoff is the floor:
     * a server (or a proxy) answering {@code Retry-After: 0}, or an HTTP date already past by our clock, would
     * otherwise be retried at once, as fast as it refuses.
     */
    private Duration retryDelay(KubernetesClientException error) {
        Duration floor = backoff.next();
        return FailurePolicy.retryAfter(error, options.backoff().cap())
                .filter(retryAfter -> retryAfter.compareTo(floor) > 0)
                .orElse(floor);
    }

    private Flux<ReflectorEvent<T>> fail(KubernetesClientException error, Step then, Duration retryIn) {
        consecutiveFailures++;
        next = then;
        delay = retryIn;
        // The first failure of a streak and then the 2nd, 4th, 8th...: an outage of a minute is a handful of
        // lines, not one per retry (the health stream says when it starts and ends); the rest at DEBUG.
        boolean milestone = Integer.bitCount(consecutiveFailures) == 1;
        if (milestone ? log.isInfoEnabled() : log.isDebugEnabled()) {
            String action = then == Step.WATCH
                    ? "watching again from resourceVersion \"" + lastSyncResourceVersion + "\""
                    : "listing again at resourceVersion \"" + nextListResourceVersion() + "\"";
            String format = "{}: {} (failure {}); {} in {} ms";
            Object[] args = {name, error.getMessage(), consecutiveFailures, action, retryIn.toMillis()};
            if (milestone) {
                log.info(format, args);
            } else {
                log.debug(format, args);
            }
        }
        return Flux.just(new ReflectorEvent.Failed<>(error, consecutiveFailures, retryIn, lastSyncResourceVersion));
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
}
