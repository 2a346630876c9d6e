package io.reactiveinformer.test.server;

import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.test.server.Representation.Negotiated;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * WATCH over HTTP: the options from the query, the state's events as newline-delimited JSON lines
 * or protobuf frames (objects in the negotiated {@link Representation}, {@code ERROR} statuses as they
 * are), and the faults that act on the stream's content: an expired watch, bytes or events inserted after
 * some events, a frame cut short, a wrong length prefix. Faults that cut or silence the connection act
 * when the reply is written ({@link ResponseWriter}).
 *
 * <p>Threading: {@link #reply} runs on the event loop serving the request; the events are produced
 * as the state's watch emits (see {@link ClusterState#watch}).
 */
final class WatchEndpoint {

    private final ClusterState state;
    private final ProtobufEncoder protobuf;

    WatchEndpoint(ClusterState state, ProtobufEncoder protobuf) {
        this.state = state;
        this.protobuf = protobuf;
    }

    Reply reply(ResourcePath t, Map<String, String> q, Fault fault, Negotiated negotiated) {
        Integer timeout = q.containsKey("timeoutSeconds")
                ? RequestDecoder.parseInt("timeoutSeconds", q.get("timeoutSeconds")) : null;
        WatchOptions options = new WatchOptions(q.get("labelSelector"), q.get("fieldSelector"),
                q.get("resourceVersion"), q.get("resourceVersionMatch"), timeout,
                "true".equals(q.get("allowWatchBookmarks")), "true".equals(q.get("sendInitialEvents")),
                state.shardSelectorParameter(q.get("shardSelector")));
        boolean inProtobuf = negotiated.protobuf();
        if (fault instanceof Fault.ExpiredWatch) {
            long oldest = state.oldestResourceVersion(t.type());
            ApiError gone = ApiError.tooOld(oldest - 1 < 0 ? 0 : oldest - 1, oldest + 1);
            return Reply.stream(Flux.just(event("ERROR", state.statusTree(gone), inProtobuf)), inProtobuf);
        }
        Representation as = negotiated.representation();
        Flux<StreamEvent> events = state.watch(t.type(), t.namespace(), options);
        Flux<byte[]> written = events.map(e -> event(e.type().name(),
                e.type() == EventType.ERROR ? e.object() : as.object(e.object()), inProtobuf));
        if (fault instanceof Fault.Insert insert) {
            written = insertAfter(written, insert.afterEvents(), insert.bytes());
        } else if (fault instanceof Fault.ObjectWithoutMetadata bad) {
            ObjectNode object = state.json().mapper().createObjectNode();
            object.put("apiVersion", t.type().apiVersion());
            object.put("kind", t.type().kind());
            written = insertAfter(written, bad.afterEvents(), event("ADDED", object, inProtobuf));
        } else if (fault instanceof Fault.UnknownEventType unknown) {
            byte[] surprise = inProtobuf
                    ? ProtobufEncoder.watchFrame("SURPRISE", protobuf.envelope(t.type().apiVersion(), t.type().kind(),
                            state.json().mapper().createObjectNode()))
                    : "{\"type\":\"SURPRISE\",\"object\":{}}\n".getBytes(StandardCharsets.UTF_8);
            written = insertAfter(written, unknown.afterEvents(), surprise);
        } else if (fault instanceof Fault.TruncatedFrame cut) {
            written = written.take(cut.afterEvents() + 1L);
            written = changeAt(written, cut.afterEvents(), bytes -> Arrays.copyOf(bytes, bytes.length / 2));
        } else if (fault instanceof Fault.WrongLength wrong && inProtobuf) {
            written = changeAt(written, wrong.afterEvents(), frame -> {
                byte[] changed = frame.clone();
                int length = frame.length - 4 + 1;
                changed[0] = (byte) (length >>> 24);
                changed[1] = (byte) (length >>> 16);
                changed[2] = (byte) (length >>> 8);
                changed[3] = (byte) length;
                return changed;
            });
        }
        return Reply.stream(written, inProtobuf);
    }

    /** One event: a JSON line, or a protobuf frame holding the enveloped object. */
    private byte[] event(String type, JsonNode object, boolean inProtobuf) {
        return inProtobuf ? ProtobufEncoder.watchFrame(type, protobuf.envelope(object))
                : WireFormat.watchEvent(state.json(), type, object);
    }

    private static Flux<byte[]> insertAfter(Flux<byte[]> events, int after, byte[] extra) {
        if (after <= 0) {
            return Flux.just(extra).concatWith(events);
        }
        return Flux.defer(() -> {
            AtomicInteger seen = new AtomicInteger();
            return events.concatMapIterable(e -> seen.incrementAndGet() == after ? List.of(e, extra) : List.of(e));
        });
    }

    /** The events, the one after {@code after} of them changed by {@code change}. */
    private static Flux<byte[]> changeAt(Flux<byte[]> events, int after, UnaryOperator<byte[]> change) {
        return Flux.defer(() -> {
            AtomicInteger seen = new AtomicInteger();
            return events.map(e -> seen.getAndIncrement() == after ? change.apply(e) : e);
        });
    }
}
