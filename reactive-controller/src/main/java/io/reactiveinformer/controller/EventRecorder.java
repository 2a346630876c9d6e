package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.reactiveinformer.client.ResourceClient;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Records {@code events.k8s.io/v1} Events about objects, as client-go's {@code tools/events} recorder does,
 * without ever holding up or failing the caller: {@link #normal}, {@link #warning} and {@link #record} return at
 * once, and what becomes of the event (written, aggregated, dropped, failed) is logged and counted, never
 * reported to the caller.
 *
 * <ul>
 *   <li><b>Series.</b> Repeats of one event (same regarding object, related object, type, reason, action and
 *       note, from this recorder) are one Event with a {@code series}: the first is created, the second patches
 *       {@code series.count: 2} at once, later ones only count until the next refresh, every 30 minutes, patches
 *       the count and {@code lastObservedTime}. A series not repeated for 6 minutes is finished: its last count
 *       is patched and a repeat after that starts a new Event. (client-go keys series without the note, so a
 *       changed note is folded under the first one; here it starts its own Event.)</li>
 *   <li><b>Rate limit.</b> Each regarding object has a token bucket, as client-go's spam filter: a burst of 25
 *       events, then one per 5 minutes; occurrences past it, repeats included, are dropped.</li>
 *   <li><b>Bounded.</b> At most {@link Builder#bufferSize} occurrences wait to be processed; more are
 *       dropped. A write that fails for a transient reason (no answer, 429, 5xx) is tried again 10 seconds
 *       later, at most 12 times in all; one refused otherwise is dropped. A series patch answered 404 (the
 *       Event expired, after an hour by default) creates the Event again.</li>
 * </ul>
 * Events are created in the regarding object's namespace ({@code default} for a cluster-scoped one), named
 * {@code <regarding name>.<hexadecimal time stamp>}, with this recorder's {@code reportingController} and
 * {@code reportingInstance}.
 *
 * <h2>Threading</h2>
 * Thread-safe. The recording methods never block: they queue the occurrence and return; occurrences are
 * processed one at a time on the {@link Builder#scheduler scheduler}, which also runs the refresh, the
 * finishing of series and the retries, and is the clock ({@code eventTime}, {@code lastObservedTime}): pass a
 * {@code VirtualTimeScheduler} in tests. Writes run on the client's threads. {@link #dispose()} stops the
 * timers and drops what is queued; a write in flight still completes.
 */
public final class EventRecorder implements Disposable {

    /** The type of an event. */
    public enum Type {
        /** Nothing to worry about: {@code Normal}. */
        NORMAL("Normal"),
        /** Something may be wrong: {@code Warning}. */
        WARNING("Warning");

        private final String wire;

        Type(String wire) {
            this.wire = wire;
        }

        /** As the Event carries it: {@code Normal} or {@code Warning}. */
        public String wire() {
            return wire;
        }
    }

    private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

    /** kube-apiserver's bound on a note, in bytes: longer notes are cut, as client-go does. */
    static final int MAX_NOTE_BYTES = 1024;

    private final String reportingController;
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger wip = new AtomicInteger();
    private final Queue<Occurrence> buffer = new ConcurrentLinkedQueue<>();
    private final int bufferSize;
    private final Scheduler scheduler;
    private final EventSeries series;
    private final Disposable.Composite timers = Disposables.composite();
    private final AtomicLong droppedBufferFull = new AtomicLong();

    private EventRecorder(Builder builder) {
        this.reportingController = builder.reportingController;
        this.bufferSize = builder.bufferSize;
        this.scheduler = builder.scheduler;
        this.series = new EventSeries(builder.client, builder.reportingController, builder.reportingInstance,
                builder.scheduler, builder.writeEnded);
        Object registry = builder.meterRegistry != null ? builder.meterRegistry : GlobalMeterRegistry.orNull();
        if (registry != null) {
            MicrometerReconcileMetrics.registerEvents(registry, reportingController, this);
        }
        timers.add(scheduler.schedulePeriodically(series::refresh, EventSeries.REFRESH.toMillis(),
                EventSeries.REFRESH.toMillis(), TimeUnit.MILLISECONDS));
        timers.add(scheduler.schedulePeriodically(series::finish, EventSeries.FINISH.toMillis(),
                EventSeries.FINISH.toMillis(), TimeUnit.MILLISECONDS));
    }

    /**
     * A recorder writing through {@code client}.
     *
     * @param client              the Events client, e.g. {@code kubernetes.resource(EventsV1Event.class)} (any
     *                            namespace: each event's is used)
     * @param reportingController the controller reporting, a qualified name such as {@code example.com/widgets}
     *                            (at most 128 characters)
     * @param reportingInstance   this replica of it, such as its Pod's name (at most 128 characters)
     */
    public static Builder builder(ResourceClient<EventsV1Event> client, String reportingController,
                                  String reportingInstance) {
        return new Builder(client, reportingController, reportingInstance);
    }

    /** Records a {@link Type#NORMAL} event about {@code regarding}; see {@link #record}. */
    public void normal(KubernetesObject regarding, String reason, String action, String note) {
        record(OwnerReferences.referenceTo(regarding), null, Type.NORMAL, reason, action, note);
    }

    /** Records a {@link Type#WARNING} event about {@code regarding}; see {@link #record}. */
    public void warning(KubernetesObject regarding, String reason, String action, String note) {
        record(OwnerReferences.referenceTo(regarding), null, Type.WARNING, reason, action, note);
    }

    /**
     * Records an event and returns at once; see the class documentation for what becomes of it.
     *
     * @param regarding what the event is about: at least its apiVersion, kind and name (and namespace if it is
     *                  namespaced); for an object, {@link #normal} and {@link #warning} take them from it (from
     *                  its class for an official model read without them)
     * @param related   a second object concerned, or {@code null}
     * @param reason    why, in UpperCamelCase, e.g. {@code ScalingReplicaSet} (1 to 128 characters)
     * @param action    what was done or failed, in UpperCamelCase, e.g. {@code Scaling} (1 to 128 characters)
     * @param note      for people, or {@code null}; cut to 1 KiB
     * @throws IllegalArgumentException when an argument breaks these rules, which kube-apiserver would refuse
     */
    public void record(V1ObjectReference regarding, V1ObjectReference related, Type type, String reason,
                       String action, String note) {
        Objects.requireNonNull(regarding, "regarding");
        Objects.requireNonNull(type, "type");
        if (regarding.getName() == null || regarding.getKind() == null || regarding.getApiVersion() == null) {
            throw new IllegalArgumentException("regarding needs an apiVersion, a kind and a name: " + regarding);
        }
        Occurrence occurrence = new Occurrence(regarding, related, type, word(reason, "reason"),
                word(action, "action"), note == null ? null : cut(note));
        if (queued.incrementAndGet() > bufferSize) {
            queued.decrementAndGet();
            droppedBufferFull.incrementAndGet();
            log.warn("{}: {} events are waiting to be recorded; dropped {}", reportingController,
                    bufferSize, occurrence);
            return;
        }
        buffer.offer(occurrence);
        if (wip.getAndIncrement() == 0) {
            scheduler.schedule(this::drain);
        }
    }

    private void drain() {
        int missed = 1;
        do {
            Occurrence occurrence;
            while ((occurrence = buffer.poll()) != null) {
                queued.decrementAndGet();
                if (!timers.isDisposed()) {
                    series.observe(occurrence);
                }
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    private static String word(String value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty() || value.length() > 128) {
            throw new IllegalArgumentException(what + " must have 1 to 128 characters: " + value);
        }
        return value;
    }

    private static String cut(String note) {
        byte[] bytes = note.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_NOTE_BYTES) {
            return note;
        }
        // back off to the start of a character, so the cut leaves valid UTF-8
        int end = MAX_NOTE_BYTES;
        while ((bytes[end] & 0xC0) == 0x80) {
            end--;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }

    /** Occurrences dropped because the buffer was full. */
    long droppedBufferFull() {
        return droppedBufferFull.get();
    }

    /** Occurrences dropped by the per-object rate limit. */
    long droppedRateLimited() {
        return series.rateLimited();
    }

    /** Writes given up on: refused, or failing after every attempt. */
    long failed() {
        return series.failed();
    }

    /** Stops the timers and drops the occurrences still queued; writes in flight complete. */
    @Override
    public void dispose() {
        timers.dispose();
    }

    @Override
    public boolean isDisposed() {
        return timers.isDisposed();
    }

    @Override
    public String toString() {
        return "EventRecorder[" + reportingController + "]";
    }

    /** One call of {@link #record}, as queued. */
    record Occurrence(V1ObjectReference regarding, V1ObjectReference related, Type type, String reason,
                      String action, String note) {

        @Override
        public String toString() {
            return type.wire() + " " + reason + "/" + action + " about " + regarding.getKind() + " "
                    + (regarding.getNamespace() == null ? "" : regarding.getNamespace() + "/") + regarding.getName();
        }
    }

    /**
     * Configures an {@link EventRecorder}. Not thread-safe. Defaults: {@link Schedulers#parallel()}, a buffer of
     * 1000 occurrences (client-go's), meters in Micrometer's global registry when Micrometer is on the class
     * path, else none.
     */
    public static final class Builder {

        private final ResourceClient<EventsV1Event> client;
        private final String reportingController;
        private final String reportingInstance;
        private Scheduler scheduler = Schedulers.parallel();
        private int bufferSize = 1000;
        private Object meterRegistry;
        private BiConsumer<EventsV1Event, Throwable> writeEnded = (written, error) -> { };

        private Builder(ResourceClient<EventsV1Event> client, String reportingController, String reportingInstance) {
            this.client = Objects.requireNonNull(client, "client");
            this.reportingController = word(reportingController, "reportingController");
            this.reportingInstance = word(reportingInstance, "reportingInstance");
        }

        /** Processes occurrences and runs every timer; the clock. Default {@link Schedulers#parallel()}. */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /** How many occurrences may wait to be processed before more are dropped; at least 1. Default 1000. */
        public Builder bufferSize(int bufferSize) {
            if (bufferSize < 1) {
                throw new IllegalArgumentException("bufferSize must be positive: " + bufferSize);
            }
            this.bufferSize = bufferSize;
            return this;
        }

        /**
         * Registers the recorder's meters with {@code registry}, tagged {@code name=<reportingController>}:
         * {@code controller_events_dropped_total{reason=buffer_full|rate_limited}} and
         * {@code controller_events_failed_total}. Default: Micrometer's global registry when Micrometer is on
         * the class path, else none.
         */
        public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Tells {@code listener} of every write's end: the Event written, or the error given up on. */
        Builder writeEnded(BiConsumer<EventsV1Event, Throwable> listener) {
            this.writeEnded = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** The recorder, its timers running. */
        public EventRecorder build() {
            return new EventRecorder(this);
        }
    }
}
