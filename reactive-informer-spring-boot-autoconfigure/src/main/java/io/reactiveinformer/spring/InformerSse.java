package io.reactiveinformer.spring;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.codec.KubernetesJson;
import io.reactiveinformer.informer.BufferPolicy;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.NotificationModule;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SubscriberOptions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.util.context.ContextView;
import tools.jackson.databind.json.JsonMapper;

/**
 * Server-sent event streams of an informer's notifications, for WebFlux handlers:
 *
 * <pre>{@code
 * @GetMapping(path = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
 * Flux<ServerSentEvent<Object>> events(@RequestHeader(name = "Last-Event-ID", required = false) String lastEventId) {
 *     return sse.stream(pods, lastEventId);
 * }
 * }</pre>
 *
 * <p>Each stream is one informer subscriber: first the cached objects ({@code added} events), then a
 * {@code synced} event exactly after them, then live {@code added}, {@code updated} and {@code deleted}
 * events as they happen; the data of each is the notification in {@link
 * io.reactiveinformer.informer.NotificationModule}'s shape, its id the object's resourceVersion. A
 * heartbeat comment goes out every {@code heartbeat}: it keeps proxies from closing a quiet stream, and
 * writing it is how an aborted client is noticed.
 *
 * <p><b>Resume</b>: a client that reconnects with {@code Last-Event-ID} (browsers' {@code EventSource}
 * do) is not sent the cached objects whose resourceVersion is not newer than that id, which it has; its
 * {@code synced} event carries {@code keys}, every key in the cache then, so it drops the objects
 * deleted while it was away. ResourceVersions are compared as numbers (etcd's are); an id that is not a
 * number resends everything.
 *
 * <p><b>Stall guard</b>: the server asks a stream for more events only as its earlier writes reach the
 * connection's socket (Reactor Netty asks for a few dozen at a time). A stream that has had no demand for
 * {@code idleTimeout} (its client took nothing, not even a heartbeat, that long, though one was always
 * pending) is ended: its subscriber leaves the informer and, where the server is Reactor Netty and the
 * request's exchange is in the Reactor context (the starter registers Spring's {@code
 * ServerWebExchangeContextFilter}), its connection is closed, which frees the writes queued for it.
 * Otherwise only the subscriber leaves, and the connection stays until its client reads or drops it.
 *
 * <p>Demand stops once the socket's buffers are full, so a client that stopped reading but keeps its
 * connection open (a paused process), or a connection that died without the server noticing, is seen
 * only after the server has sent it more than the kernel's send and receive buffers hold (from some
 * hundred KB to a few MB); before that, nothing on the server tells it from a client that reads, and a
 * quiet stream (heartbeats only, some twenty bytes each) may never fill them. What such a client costs is
 * bounded in memory by those kernel buffers while they fill (the informer buffer drains into them as fast
 * as a live client's), then for at most {@code idleTimeout} by its informer buffer ({@link BufferPolicy}:
 * {@code COALESCE} one pending notification per key, {@code BOUNDED} 1024, {@code UNBOUNDED} all) plus
 * the events the server has queued or prefetched (about a hundred). A client that reads slowly keeps its
 * stream as long as it takes in each batch within {@code idleTimeout}.
 *
 * <p><b>Encoding</b>: each event's data is encoded to JSON text by the stream's informer subscriber, on the
 * informer's delivery thread, with the application's {@link JsonMapper} (Boot's, with the
 * {@link NotificationModule}); the server's event loop only writes that text. Left to Spring's SSE writer,
 * the JSON encoding of every event queued while a client caught up ran on the event loop, in one task
 * (150 ms to 1.5 s with 32 KiB objects, seen by the test kit's {@code EventLoopStallGuard}).
 *
 * <p>Backpressure: each stream has its own informer buffer with the configured {@link BufferPolicy};
 * a slow client delays no one else. Timers run on the given scheduler (a virtual-time one in tests).
 * Thread-safe.
 */
public final class InformerSse {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(InformerSse.class);

    private final Duration heartbeat;
    private final Duration idleTimeout;
    private final BufferPolicy bufferPolicy;
    private final Scheduler scheduler;
    private final JsonMapper json;
    private final AtomicLong streams = new AtomicLong();

    /** Encodes with the library's own mapping ({@link KubernetesJson#mapperBuilder()} and {@link NotificationModule}). */
    public InformerSse(Duration heartbeat, Duration idleTimeout, BufferPolicy bufferPolicy, Scheduler scheduler) {
        this(heartbeat, idleTimeout, bufferPolicy, scheduler,
                KubernetesJson.mapperBuilder().addModule(new NotificationModule()).build());
    }

    /** @param json encodes the events' data; it must know {@link NotificationModule} (Boot's mapper does, with the starter) */
    public InformerSse(Duration heartbeat, Duration idleTimeout, BufferPolicy bufferPolicy, Scheduler scheduler,
                       JsonMapper json) {
        this.json = Objects.requireNonNull(json, "json");
        this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
        this.idleTimeout = Objects.requireNonNull(idleTimeout, "idleTimeout");
        this.bufferPolicy = Objects.requireNonNull(bufferPolicy, "bufferPolicy");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        if (heartbeat.isZero() || heartbeat.isNegative() || idleTimeout.compareTo(heartbeat) < 0) {
            throw new IllegalArgumentException("need 0 < heartbeat <= idleTimeout: " + heartbeat + ", " + idleTimeout);
        }
    }

    /** A new stream of {@code informer}'s notifications from the start. */
    public <T extends KubernetesObject> Flux<ServerSentEvent<Object>> stream(SharedIndexInformer<T> informer) {
        return stream(informer, null);
    }

    /**
     * A new stream of {@code informer}'s notifications.
     *
     * @param lastEventId the client's {@code Last-Event-ID} header when it resumes, else {@code null}
     */
    public <T extends KubernetesObject> Flux<ServerSentEvent<Object>> stream(SharedIndexInformer<T> informer,
                                                                            String lastEventId) {
        Objects.requireNonNull(informer, "informer");
        long resumeAfter = resourceVersion(lastEventId);
        return Flux.deferContextual(context -> {
            SubscriberOptions options = options().withName("sse-" + streams.incrementAndGet()).withSyncMarker();
            AtomicBoolean initial = new AtomicBoolean(true);
            Demand demand = new Demand(now());
            Runnable disconnect = disconnector(context);
            Sinks.Empty<Void> ended = Sinks.empty();
            Sinks.Empty<Void> stalled = Sinks.empty();
            Flux<ServerSentEvent<Object>> events = informer.notifications(options)
                    .filter(n -> {
                        if (n instanceof Notification.Synced<T>) {
                            initial.set(false);
                            return true;
                        }
                        return !(initial.get() && resumeAfter >= 0 && n instanceof Notification.Added<T> a
                                && resourceVersion(a.object()) <= resumeAfter);
                    })
                    .map(n -> event(n, informer, resumeAfter >= 0, json))
                    .doFinally(signal -> ended.tryEmitEmpty());
            Flux<ServerSentEvent<Object>> heartbeats = Flux.interval(heartbeat, heartbeat, scheduler)
                    .handle((tick, sink) -> {
                        long stalledFor = demand.noneFor(now());
                        if (stalledFor >= idleTimeout.toMillis()) {
                            log.debug("{}: the SSE client has asked for nothing for {} ms; ending its stream",
                                    options.name(), stalledFor);
                            stalled.tryEmitEmpty();  // the subscriber leaves the informer
                            disconnect.run();
                            sink.complete();
                        } else {
                            sink.next(tick);
                        }
                    })
                    .onBackpressureDrop()
                    .map(tick -> ServerSentEvent.builder().comment("heartbeat").build())
                    .takeUntilOther(ended.asMono());
            // ending normally (not with an error): the client is gone or stuck, there is no one to tell
            return Flux.merge(events, heartbeats)
                    .takeUntilOther(stalled.asMono())
                    .doOnNext(e -> demand.taken(now()))
                    .doOnRequest(demand::requested);
        });
    }

    /** Closes the request's connection, where the server is Reactor Netty and the exchange is in the context. */
    private static Runnable disconnector(ContextView context) {
        return ServerWebExchangeContextFilter.getExchange(context)
                .<Runnable>map(exchange -> () -> {
                    if (!ReactorNettyConnections.close(exchange.getResponse())) {
                        log.debug("cannot close the connection of a stalled SSE stream: not Reactor Netty");
                    }
                })
                .orElse(() -> log.debug("cannot close the connection of a stalled SSE stream: no exchange in its context"
                        + " (register Spring's ServerWebExchangeContextFilter)"));
    }

    private SubscriberOptions options() {
        return switch (bufferPolicy) {
            case COALESCE -> SubscriberOptions.defaults().coalescing();
            case UNBOUNDED -> SubscriberOptions.defaults().unbounded();
            case BOUNDED -> SubscriberOptions.defaults().bounded(1024);
        };
    }

    private long now() {
        return scheduler.now(TimeUnit.MILLISECONDS);
    }

    /** The event of {@code n}, its data already JSON text (see "Encoding" above). */
    private static <T extends KubernetesObject> ServerSentEvent<Object> event(Notification<T> n,
                                                                              SharedIndexInformer<T> informer,
                                                                              boolean resumed, JsonMapper json) {
        if (n instanceof Notification.Synced<T>) {
            ServerSentEvent.Builder<Object> synced = ServerSentEvent.builder().event("synced");
            if (resumed) {
                Map<String, Object> data = new LinkedHashMap<>();
                data.put("type", "SYNCED");
                data.put("key", "");
                data.put("keys", informer.indexer().listKeys());
                return synced.data(json.writeValueAsString(data)).build();
            }
            return synced.data(json.writeValueAsString(n)).build();
        }
        KubernetesObject object = n instanceof Notification.Added<T> a ? a.object()
                : n instanceof Notification.Updated<T> u ? u.newObject()
                : ((Notification.Deleted<T>) n).lastState();
        String type = n instanceof Notification.Added<T> ? "added" : n instanceof Notification.Updated<T> ? "updated"
                : "deleted";
        ServerSentEvent.Builder<Object> b = ServerSentEvent.builder().event(type).data(json.writeValueAsString(n));
        String rv = object.getMetadata() == null ? null : object.getMetadata().getResourceVersion();
        return (rv == null ? b : b.id(rv)).build();
    }

    private static long resourceVersion(KubernetesObject object) {
        return object.getMetadata() == null ? -1 : resourceVersion(object.getMetadata().getResourceVersion());
    }

    /** A resourceVersion as a number; -1 when absent or not a number (compare nothing then). */
    private static long resourceVersion(String rv) {
        if (rv == null || rv.isEmpty()) {
            return -1;
        }
        try {
            return Long.parseLong(rv.trim());
        } catch (NumberFormatException notNumeric) {
            return -1;
        }
    }

    /**
     * The demand of a stream's consumer not yet met, and since when it has had none. A request racing with the
     * element that used up the previous one can leave {@code noneSince} newer than it was: the stall is then
     * measured from later, never from earlier.
     */
    private static final class Demand {

        private final AtomicLong outstanding = new AtomicLong();
        private volatile long noneSince;

        Demand(long now) {
            noneSince = now;
        }

        void requested(long n) {
            outstanding.accumulateAndGet(n, Operators::addCap);
        }

        void taken(long now) {
            if (outstanding.get() != Long.MAX_VALUE && outstanding.decrementAndGet() == 0) {
                noneSince = now;
            }
        }

        /** How long the consumer has asked for nothing more; 0 while it has demand. */
        long noneFor(long now) {
            return outstanding.get() > 0 ? 0 : now - noneSince;
        }
    }
}
