package io.reactiveinformer.test.server;

import io.reactiveinformer.api.WatchOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.node.ObjectNode;

/**
 * The open watch streams of a state: how a watch starts (initial events, resume, 410), what each
 * watcher reads from its resource's history, bookmarks and timeouts, and the fan-out of new changes
 * ({@link #signal()}) to every watcher. Reads of the {@link ObjectStore} and of watcher cursors take
 * the state's lock (the {@link ClusterState} monitor); events are emitted outside it. The watcher list
 * itself is copy-on-write, read without the lock.
 */
final class WatchHub {

    private final ClusterState state;
    private final ObjectStore store;
    private final Scheduler scheduler;
    private final Duration bookmarkInterval;
    private final List<Watcher> watchers = new CopyOnWriteArrayList<>();

    WatchHub(ClusterState state, ObjectStore store, Scheduler scheduler, Duration bookmarkInterval) {
        this.state = state;
        this.store = store;
        this.scheduler = scheduler;
        this.bookmarkInterval = bookmarkInterval;
    }

    Flux<StreamEvent> watch(Kind kind, String namespace, WatchOptions options) {
        Selector labels = Selector.labels(options.labelSelector());
        Selector fields = Selector.fields(kind.type, options.fieldSelector());
        String rv = options.resourceVersion();
        Long requested = rv == null || rv.isEmpty() || rv.equals("0") ? null : ResourceVersions.parse(rv);
        if (options.sendInitialEvents()
                && (!"NotOlderThan".equals(options.resourceVersionMatch()) || !options.allowBookmarks())) {
            throw new ApiError(422, "Invalid", "sendInitialEvents requires resourceVersionMatch=NotOlderThan and "
                    + "allowWatchBookmarks=true", null, null);
        }
        String ns = kind.type.namespaced() && namespace != null && !namespace.isEmpty() ? namespace : null;
        Flux<StreamEvent> events = Flux.create(sink -> {
            Watcher watcher = new Watcher(this, kind, ns, labels, fields, options.shardSelector(),
                    options.allowBookmarks());
            open(watcher, sink, requested, options.sendInitialEvents());
            Disposable bookmarks = options.allowBookmarks()
                    ? Flux.interval(bookmarkInterval, bookmarkInterval, scheduler).subscribe(t -> watcher.requestBookmark())
                    : null;
            sink.onRequest(n -> watcher.drain());
            sink.onDispose(() -> {
                forget(watcher);
                if (bookmarks != null) {
                    bookmarks.dispose();
                }
            });
        }, FluxSink.OverflowStrategy.BUFFER);
        Integer timeout = options.timeoutSeconds();
        return timeout == null || timeout <= 0 ? events
                : events.takeUntilOther(Mono.delay(Duration.ofSeconds(timeout), scheduler));
    }

    private void open(Watcher watcher, FluxSink<StreamEvent> sink, Long requested, boolean sendInitialEvents) {
        List<StreamEvent> initial = new ArrayList<>();
        boolean completeAfterInitial = false;
        synchronized (state) {
            long current = store.resourceVersion();
            long compactedTo = watcher.kind.history.compactedTo();
            if (requested == null || sendInitialEvents) {
                if (requested != null && requested > current) {
                    initial.add(new StreamEvent(EventType.ERROR, state.statusTree(ApiError.tooLarge(requested, current))));
                    completeAfterInitial = true;
                } else {
                    for (ObjectNode obj : watcher.kind.objects.values()) {
                        if (watcher.matches(obj)) {
                            initial.add(new StreamEvent(EventType.ADDED, obj));
                        }
                    }
                    if (sendInitialEvents) {
                        ObjectNode end = bookmarkTree(watcher.kind, current);
                        ((ObjectNode) end.get("metadata")).putObject("annotations")
                                .put(ClusterState.INITIAL_EVENTS_END, "true");
                        initial.add(new StreamEvent(EventType.BOOKMARK, end));
                    }
                }
                watcher.cursor = current;
            } else if (requested < compactedTo) {
                initial.add(new StreamEvent(EventType.ERROR, state.statusTree(ApiError.tooOld(requested, compactedTo + 1))));
                completeAfterInitial = true;
            } else {
                watcher.cursor = requested;
            }
            watcher.start(sink, initial, completeAfterInitial);
            if (!completeAfterInitial) {
                watchers.add(watcher);
            }
        }
    }

    void forget(Watcher watcher) {
        watchers.remove(watcher);
    }

    /** The 410 event for a watcher its resource's history has left behind, or {@code null}. */
    StreamEvent expiry(Watcher watcher) {
        synchronized (state) {
            long compactedTo = watcher.kind.history.compactedTo();
            if (watcher.cursor < compactedTo) {
                return new StreamEvent(EventType.ERROR, state.statusTree(ApiError.tooOld(watcher.cursor, compactedTo + 1)));
            }
            return null;
        }
    }

    /** Up to {@code demand} events for {@code watcher} from its cursor on, advancing it. */
    List<StreamEvent> collect(Watcher watcher, long demand) {
        synchronized (state) {
            long current = store.resourceVersion();
            List<StreamEvent> out = new ArrayList<>();
            History history = watcher.kind.history;
            int i = history.firstAfter(watcher.cursor);
            for (; i < history.size() && out.size() < demand; i++) {
                Change change = history.get(i);
                StreamEvent event = watcher.translate(change);
                if (event != null) {
                    out.add(event);
                }
                watcher.cursor = change.resourceVersion();
            }
            if (i == history.size()) {
                // nothing of this resource is newer: the watcher has seen everything up to now
                watcher.cursor = current;
            }
            if (watcher.cursor == current && watcher.bookmarkWanted && out.size() < demand) {
                watcher.bookmarkWanted = false;
                out.add(new StreamEvent(EventType.BOOKMARK, bookmarkTree(watcher.kind, current)));
            }
            return out;
        }
    }

    /** Feeds every watcher; called after the lock is released. */
    void signal() {
        for (Watcher w : watchers) {
            w.drain();
        }
    }

    /** Makes every watcher that allows bookmarks send one at its current version. */
    void bookmark() {
        for (Watcher w : watchers) {
            w.requestBookmark();
        }
    }

    int count() {
        return watchers.size();
    }

    private ObjectNode bookmarkTree(Kind kind, long rv) {
        ObjectNode tree = state.json().mapper().createObjectNode();
        tree.put("kind", kind.type.kind());
        tree.put("apiVersion", kind.type.apiVersion());
        tree.putObject("metadata").put("resourceVersion", Long.toString(rv));
        return tree;
    }
}
