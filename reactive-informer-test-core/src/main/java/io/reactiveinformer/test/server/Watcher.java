package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ShardSelector;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.FluxSink;
import tools.jackson.databind.node.ObjectNode;

/**
 * One watch stream. It holds no copy of the events: a cursor into the shared history, read as
 * downstream demand allows. The history is its bounded buffer: a watcher whose cursor falls behind
 * the history window gets an {@code ERROR} 410 event and is closed, as the real server closes
 * watchers that cannot keep up.
 *
 * <p>Threading: {@link #drain()} may be called from any thread (the mutating one, the one requesting);
 * a work-in-progress counter serializes emission, so events leave in history order.
 */
final class Watcher {

    final Kind kind;
    final String namespace;
    final Selector labels;
    final Selector fields;
    final ShardSelector shard;
    final boolean bookmarks;
    private final WatchHub hub;
    private final AtomicInteger wip = new AtomicInteger();
    /** Events to send before the history: the initial state, or a terminal error. Drain-confined. */
    private final ArrayDeque<StreamEvent> pending = new ArrayDeque<>();
    private boolean completeAfterPending;
    private boolean terminated;
    /** Every event up to this version has been delivered or skipped. Guarded by the state's lock. */
    long cursor;
    volatile boolean bookmarkWanted;
    private FluxSink<StreamEvent> sink;

    /**
     * @param shard the shard selector (a uid or namespace never changes, so an object never moves in or out of
     *              it: no event turns into an ADDED or DELETED by it), or {@code null}
     */
    Watcher(WatchHub hub, Kind kind, String namespace, Selector labels, Selector fields, ShardSelector shard,
            boolean bookmarks) {
        this.hub = hub;
        this.kind = kind;
        this.namespace = namespace;
        this.labels = labels;
        this.fields = fields;
        this.shard = shard;
        this.bookmarks = bookmarks;
    }

    /** Called once, from the subscribing thread, before any drain. */
    void start(FluxSink<StreamEvent> sink, List<StreamEvent> initial, boolean completeAfterInitial) {
        this.sink = sink;
        pending.addAll(initial);
        completeAfterPending = completeAfterInitial;
    }

    boolean matches(ObjectNode object) {
        if (namespace != null && !namespace.equals(object.path("metadata").path("namespace").asString(""))) {
            return false;
        }
        return labels.matches(object) && fields.matches(object)
                && (shard == null || ShardSelectorParser.matches(shard, object));
    }

    /** The event this watcher sees for {@code change}, after namespace and selectors, or {@code null}. */
    StreamEvent translate(Change change) {
        boolean now = matches(change.object());
        boolean before = change.previous() != null && matches(change.previous());
        EventType type = switch (change.type()) {
            case ADDED -> now ? EventType.ADDED : null;
            case DELETED -> before ? EventType.DELETED : null;
            default -> before && now ? EventType.MODIFIED : now ? EventType.ADDED : before ? EventType.DELETED : null;
        };
        if (type == null) {
            return null;
        }
        if (type == EventType.DELETED && change.type() != EventType.DELETED) {
            // as the real server: leaving the selection is told with the object as it last matched, at
            // the version of the change (the new state would not match the watcher's own selector)
            ObjectNode last = change.previous().deepCopy();
            ((ObjectNode) last.get("metadata")).put("resourceVersion", Long.toString(change.resourceVersion()));
            return new StreamEvent(type, last);
        }
        return new StreamEvent(type, change.object());
    }

    void requestBookmark() {
        if (bookmarks) {
            bookmarkWanted = true;
            drain();
        }
    }

    void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        for (;;) {
            if (!terminated && !sink.isCancelled()) {
                drainOnce();
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    private void drainOnce() {
        StreamEvent expired = completeAfterPending ? null : hub.expiry(this);
        if (expired != null) {
            terminate(expired);
            return;
        }
        long demand = sink.requestedFromDownstream();
        while (demand > 0 && !pending.isEmpty()) {
            sink.next(pending.poll());
            demand--;
        }
        if (!pending.isEmpty()) {
            return;
        }
        if (completeAfterPending) {
            terminated = true;
            sink.complete();
            return;
        }
        if (demand > 0) {
            for (StreamEvent event : hub.collect(this, demand)) {
                sink.next(event);
            }
        }
    }

    private void terminate(StreamEvent error) {
        terminated = true;
        pending.clear();
        hub.forget(this);
        // sent past demand on purpose: the one buffered event is how a closed watcher learns why
        sink.next(error);
        sink.complete();
    }
}
