package io.reactiveinformer.test.server;

import io.reactiveinformer.api.WatchOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import tools.jackson.databind.node.ObjectNode;

/**
 * WATCH over HTTP: the options from the query, the state's events as newline-delimited JSON lines
 * (objects in the negotiated {@link Representation}, {@code ERROR} statuses as they are), and the
 * faults that act on the stream's content: an expired watch, and lines inserted after some events.
 * Faults that cut or silence the connection act when the reply is written ({@link ResponseWriter}).
 *
 * <p>Threading: {@link #reply} runs on the event loop serving the request; the lines are produced
 * as the state's watch emits (see {@link ClusterState#watch}).
 */
final class WatchEndpoint {

    private final ClusterState state;

    WatchEndpoint(ClusterState state) {
        this.state = state;
    }

    Reply reply(ResourcePath t, Map<String, String> q, Fault fault, Representation as) {
        Integer timeout = q.containsKey("timeoutSeconds")
                ? RequestDecoder.parseInt("timeoutSeconds", q.get("timeoutSeconds")) : null;
        WatchOptions options = new WatchOptions(q.get("labelSelector"), q.get("fieldSelector"),
                q.get("resourceVersion"), q.get("resourceVersionMatch"), timeout,
                "true".equals(q.get("allowWatchBookmarks")), "true".equals(q.get("sendInitialEvents")),
                state.shardSelectorParameter(q.get("shardSelector")));
        if (fault instanceof Fault.ExpiredWatch) {
            long oldest = state.oldestResourceVersion(t.type());
            ApiError gone = ApiError.tooOld(oldest - 1 < 0 ? 0 : oldest - 1, oldest + 1);
            return Reply.stream(Flux.just(WireFormat.watchEvent(state.json(), "ERROR", state.statusTree(gone))));
        }
        Flux<StreamEvent> events = state.watch(t.type(), t.namespace(), options);
        Flux<byte[]> lines = events.map(e -> WireFormat.watchEvent(state.json(), e.type().name(),
                e.type() == EventType.ERROR ? e.object() : as.object(e.object())));
        if (fault instanceof Fault.Insert insert) {
            lines = insertAfter(lines, insert.afterEvents(), insert.bytes());
        } else if (fault instanceof Fault.ObjectWithoutMetadata bad) {
            ObjectNode object = state.json().mapper().createObjectNode();
            object.put("apiVersion", t.type().apiVersion());
            object.put("kind", t.type().kind());
            lines = insertAfter(lines, bad.afterEvents(), WireFormat.watchEvent(state.json(), "ADDED", object));
        }
        return Reply.stream(lines);
    }

    private static Flux<byte[]> insertAfter(Flux<byte[]> lines, int after, byte[] extra) {
        if (after <= 0) {
            return Flux.just(extra).concatWith(lines);
        }
        return Flux.defer(() -> {
            AtomicInteger seen = new AtomicInteger();
            return lines.concatMapIterable(line -> seen.incrementAndGet() == after ? List.of(line, extra) : List.of(line));
        });
    }
}
