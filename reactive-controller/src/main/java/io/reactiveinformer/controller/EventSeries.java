package io.reactiveinformer.controller;

import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.EventsV1EventSeries;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.ResourceClient;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.retry.Retry;

/**
 * The state of an {@link EventRecorder}: the Events it wrote, each with its series count, and the rate limit
 * per regarding object; and the writes that follow from them. At most one write per Event is in flight: repeats
 * meanwhile only count, and the write's end sends what they added when it is due.
 *
 * <p>Threading: its state is guarded by {@code lock}, held for bookkeeping only; writes are subscribed after
 * releasing it and end on the client's threads.
 */
final class EventSeries {

    private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

    /** How often the counts of running series are written (client-go's {@code refreshTime}). */
    static final Duration REFRESH = Duration.ofMinutes(30);
    /** A series not repeated for this long is finished (client-go's {@code finishTime}). */
    static final Duration FINISH = Duration.ofMinutes(6);
    /** Attempts of a write failing for a transient reason, and the wait between them (client-go's). */
    static final int ATTEMPTS = 12;
    static final Duration RETRY_DELAY = Duration.ofSeconds(10);
    /** The spam filter's bucket per object (client-go's {@code defaultSpamBurst}, {@code defaultSpamQPS}). */
    static final int BURST = 25;
    static final Duration REFILL = Duration.ofMinutes(5);

    private static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSXXX").withZone(ZoneOffset.UTC);

    private final ResourceClient<EventsV1Event> client;
    private final String reportingController;
    private final String reportingInstance;
    private final Scheduler scheduler;
    /** Told of every write's end (tests wait for it); not under the lock. */
    private final BiConsumer<EventsV1Event, Throwable> writeEnded;

    private final Object lock = new Object();
    // Guarded by lock.
    private final Map<Key, Entry> events = new HashMap<>();
    private final Map<String, Bucket> buckets = new HashMap<>();
    private long lastStamp;
    private long rateLimited;
    private long failed;

    EventSeries(ResourceClient<EventsV1Event> client, String reportingController, String reportingInstance,
                Scheduler scheduler, BiConsumer<EventsV1Event, Throwable> writeEnded) {
        this.client = client;
        this.writeEnded = writeEnded;
        this.reportingController = reportingController;
        this.reportingInstance = reportingInstance;
        this.scheduler = scheduler;
    }

    /** Aggregation key: what makes two occurrences the same event (not the regarding object's version). */
    private record Key(String apiVersion, String kind, String namespace, String name, String uid,
                       V1ObjectReference related, String type, String reason, String action, String note) {
    }

    /** One Event written (or being created) and its series. */
    private static final class Entry {
        final EventsV1Event event;
        int count = 1;
        /** The count the server has (0 before the create succeeded). */
        int written;
        long lastObserved;
        boolean writing;
        /** Finished: removed once its last count is written. */
        boolean finished;
        /** A refresh came while a write was in flight. */
        boolean refreshDue;

        Entry(EventsV1Event event, long now) {
            this.event = event;
            this.lastObserved = now;
        }
    }

    /** A token bucket: {@code tokens} at {@code at}. */
    private static final class Bucket {
        double tokens = BURST;
        long at;

        Bucket(long now) {
            this.at = now;
        }

        /** Refills up to now; whether full. */
        boolean refill(long now) {
            tokens = Math.min(BURST, tokens + (double) (now - at) / REFILL.toMillis());
            at = now;
            return tokens >= BURST;
        }
    }

    void observe(EventRecorder.Occurrence occurrence) {
        long now = scheduler.now(TimeUnit.MILLISECONDS);
        Runnable write;
        synchronized (lock) {
            V1ObjectReference regarding = occurrence.regarding();
            Bucket bucket = buckets.computeIfAbsent(regarding.getKind() + "/" + regarding.getNamespace() + "/"
                    + regarding.getName() + "/" + regarding.getUid(), k -> new Bucket(now));
            bucket.refill(now);
            if (bucket.tokens < 1) {
                rateLimited++;
                log.debug("{}: rate limit of {} {} reached; dropped {}", reportingController, regarding.getKind(),
                        regarding.getName(), occurrence);
                return;
            }
            bucket.tokens--;
            Key key = new Key(regarding.getApiVersion(), regarding.getKind(), regarding.getNamespace(),
                    regarding.getName(), regarding.getUid(), occurrence.related(), occurrence.type().wire(),
                    occurrence.reason(), occurrence.action(), occurrence.note());
            Entry entry = events.get(key);
            if (entry == null) {
                entry = new Entry(newEvent(occurrence, now), now);
                events.put(key, entry);
                write = startWrite(key, entry);
            } else {
                entry.count++;
                entry.lastObserved = now;
                // the second occurrence turns the Event into a series at once; later ones wait for the refresh
                write = entry.written == 1 && !entry.writing ? startWrite(key, entry) : null;
            }
        }
        if (write != null) {
            write.run();
        }
    }

    /** Writes the counts of every running series that changed. */
    void refresh() {
        List<Runnable> writes = new ArrayList<>();
        synchronized (lock) {
            for (Map.Entry<Key, Entry> e : events.entrySet()) {
                Entry entry = e.getValue();
                if (entry.written > 0 && entry.count > entry.written) {
                    if (entry.writing) {
                        entry.refreshDue = true; // written when the write in flight ends
                    } else {
                        writes.add(startWrite(e.getKey(), entry));
                    }
                }
            }
        }
        writes.forEach(Runnable::run);
    }

    /**
     * Finishes the series not repeated within {@link #FINISH}: writes their last count, then forgets them; and
     * forgets the buckets full again.
     */
    void finish() {
        long now = scheduler.now(TimeUnit.MILLISECONDS);
        List<Runnable> writes = new ArrayList<>();
        synchronized (lock) {
            Iterator<Map.Entry<Key, Entry>> it = events.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Key, Entry> e = it.next();
                Entry entry = e.getValue();
                if (now - entry.lastObserved < FINISH.toMillis()) {
                    continue;
                }
                entry.finished = true;
                if (entry.writing) {
                    continue; // removed when the write ends
                }
                if (entry.written > 0 && entry.count > entry.written) {
                    writes.add(startWrite(e.getKey(), entry));
                } else {
                    it.remove();
                }
            }
            buckets.values().removeIf(bucket -> bucket.refill(now));
        }
        writes.forEach(Runnable::run);
    }

    /** Marks the entry as writing and returns the write to subscribe once the lock is released. */
    private Runnable startWrite(Key key, Entry entry) {
        entry.writing = true;
        entry.refreshDue = false;
        int count = entry.count;
        Mono<EventsV1Event> write;
        if (entry.written == 0) {
            write = create(entry.event, count, entry.lastObserved);
        } else {
            write = patch(entry.event, count, entry.lastObserved)
                    .onErrorResume(KubernetesApiException.NotFound.class,
                            gone -> create(entry.event, count, entry.lastObserved));
        }
        Mono<EventsV1Event> attempts = write.retryWhen(Retry.fixedDelay(ATTEMPTS - 1, RETRY_DELAY)
                .filter(EventSeries::retriable)
                .scheduler(scheduler)
                .onRetryExhaustedThrow((spec, signal) -> signal.failure()));
        return () -> attempts.subscribe(written -> ended(key, entry, count, written, null),
                error -> ended(key, entry, count, null, error));
    }

    private void ended(Key key, Entry entry, int count, EventsV1Event written, Throwable error) {
        Runnable next = ended(key, entry, count, error);
        writeEnded.accept(written, error);
        if (next != null) {
            next.run();
        }
    }

    /** The bookkeeping of a write's end; the write it calls for next, if any. */
    private Runnable ended(Key key, Entry entry, int count, Throwable error) {
        Runnable next = null;
        synchronized (lock) {
            entry.writing = false;
            if (error != null) {
                failed++;
                log.warn("{}: could not record {} {} about {} {}: {}", reportingController, entry.event.getType(),
                        entry.event.getReason(), entry.event.getRegarding().getKind(),
                        entry.event.getRegarding().getName(), error.toString());
                if (entry.written == 0 || entry.finished) {
                    // never created, a later occurrence starts again; or finished, nothing more to write
                    events.remove(key, entry);
                    return null;
                }
            } else {
                entry.written = count;
            }
            if (entry.finished && entry.count == entry.written) {
                events.remove(key, entry);
            } else if (error == null && entry.count > entry.written
                    && (count == 1 || entry.refreshDue || entry.finished)) {
                // repeated while being created (the series starts now, as it would have), or a refresh or the
                // finish came meanwhile
                next = startWrite(key, entry);
            }
        }
        return next;
    }

    private EventsV1Event newEvent(EventRecorder.Occurrence occurrence, long now) {
        // names must differ even for events recorded in one millisecond (or one virtual instant)
        long stamp = Math.max(TimeUnit.MILLISECONDS.toNanos(now), lastStamp + 1);
        lastStamp = stamp;
        V1ObjectReference regarding = occurrence.regarding();
        String namespace = regarding.getNamespace() == null || regarding.getNamespace().isEmpty()
                ? "default" : regarding.getNamespace();
        return new EventsV1Event().apiVersion("events.k8s.io/v1").kind("Event")
                .metadata(new V1ObjectMeta().namespace(namespace)
                        .name(regarding.getName() + "." + Long.toHexString(stamp)))
                .eventTime(OffsetDateTime.ofInstant(Instant.ofEpochMilli(now), ZoneOffset.UTC))
                .regarding(regarding)
                .related(occurrence.related())
                .type(occurrence.type().wire())
                .reason(occurrence.reason())
                .action(occurrence.action())
                .note(occurrence.note())
                .reportingController(reportingController)
                .reportingInstance(reportingInstance);
    }

    /** Creates {@code event}, with its series when {@code count} is past one (after it expired). */
    private Mono<EventsV1Event> create(EventsV1Event event, int count, long lastObserved) {
        return Mono.defer(() -> {
            EventsV1Event copy = new EventsV1Event().apiVersion(event.getApiVersion()).kind(event.getKind())
                    .metadata(new V1ObjectMeta().namespace(event.getMetadata().getNamespace())
                            .name(event.getMetadata().getName()))
                    .eventTime(event.getEventTime()).regarding(event.getRegarding()).related(event.getRelated())
                    .type(event.getType()).reason(event.getReason()).action(event.getAction()).note(event.getNote())
                    .reportingController(event.getReportingController())
                    .reportingInstance(event.getReportingInstance());
            if (count > 1) {
                copy.series(new EventsV1EventSeries().count(count)
                        .lastObservedTime(OffsetDateTime.ofInstant(Instant.ofEpochMilli(lastObserved), ZoneOffset.UTC)));
            }
            return client.inNamespace(event.getMetadata().getNamespace()).create(copy);
        });
    }

    private Mono<EventsV1Event> patch(EventsV1Event event, int count, long lastObserved) {
        String body = "{\"series\":{\"count\":" + count + ",\"lastObservedTime\":\""
                + MICRO_TIME.format(Instant.ofEpochMilli(lastObserved)) + "\"}}";
        return Mono.defer(() -> client.inNamespace(event.getMetadata().getNamespace())
                .patch(event.getMetadata().getName(), PatchType.MERGE, body));
    }

    /** No answer, or one that says to try again (429, 5xx). */
    private static boolean retriable(Throwable error) {
        return error instanceof KubernetesClientException e && e.isRetriable();
    }

    long rateLimited() {
        synchronized (lock) {
            return rateLimited;
        }
    }

    long failed() {
        synchronized (lock) {
            return failed;
        }
    }
}
