package io.reactiveinformer.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.test.server.Fault;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Events recorded over HTTP on the simulated server, with every timer in virtual time; the test waits for the
 * recorder's writes to end (they run on the client's threads), never for time to pass.
 */
@Timeout(60)
class EventRecorderTest {

    private static final ResourceType<EventsV1Event> EVENTS = ResourceType.of(EventsV1Event.class);
    private static final long START = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final SimulatedApiServer server = SimulatedApiServer.start();
    private final KubernetesClient client = KubernetesClient.create(ClientConfig.forServer(server.url()));
    /** The end of every write: the Event written, or the error given up on. */
    private final BlockingQueue<Object> ends = new LinkedBlockingQueue<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private EventRecorder recorder;
    private V1ConfigMap web;

    EventRecorderTest() {
        time.advanceTimeTo(Instant.ofEpochMilli(START));
        server.state().create(new V1Namespace().metadata(new V1ObjectMeta().name("shop")));
        web = server.state().create(configMap("web"));
        recorder = recorder(time).build();
    }

    private EventRecorder.Builder recorder(Scheduler scheduler) {
        return EventRecorder.builder(client.resource(EventsV1Event.class), "example.com/widgets", "widgets-0")
                .scheduler(scheduler)
                .meterRegistry(meters)
                .writeEnded((written, error) -> ends.add(written != null ? written : error));
    }

    @AfterEach
    void stop() {
        recorder.dispose();
        client.close();
        server.close();
        time.dispose();
    }

    private static V1ConfigMap configMap(String name) {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("shop").name(name)).data(Map.of("k", "v"));
    }

    /** Runs what is due now (the recorder's processing) and waits for the next write to end. */
    private Object nextWrite() throws InterruptedException {
        time.advanceTime();
        Object end = ends.poll(30, TimeUnit.SECONDS);
        assertThat(end).as("a write ended").isNotNull();
        return end;
    }

    private List<EventsV1Event> stored() {
        return server.state().list(EVENTS).stream()
                .sorted(Comparator.comparing((EventsV1Event e) -> e.getMetadata().getName())).toList();
    }

    private long requests(String method) {
        return server.requests().stream()
                .filter(r -> r.method().equals(method) && r.path().contains("/apis/events.k8s.io/v1/")).count();
    }

    private static OffsetDateTime at(Duration sinceStart) {
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(START).plus(sinceStart), ZoneOffset.UTC);
    }

    @Test
    void theFirstOccurrenceCreatesAnEventAboutTheObject() throws Exception {
        web.setApiVersion(null);
        web.setKind(null); // as objects of a list come: the model class gives them

        recorder.normal(web, "Scaled", "Scaling", "scaled to 3");
        nextWrite();

        EventsV1Event event = stored().get(0);
        assertThat(event.getMetadata().getNamespace()).isEqualTo("shop");
        assertThat(event.getMetadata().getName()).startsWith("web.");
        assertThat(event.getRegarding().getApiVersion()).isEqualTo("v1");
        assertThat(event.getRegarding().getKind()).isEqualTo("ConfigMap");
        assertThat(event.getRegarding().getName()).isEqualTo("web");
        assertThat(event.getRegarding().getUid()).isEqualTo(web.getMetadata().getUid());
        assertThat(event.getType()).isEqualTo("Normal");
        assertThat(event.getReason()).isEqualTo("Scaled");
        assertThat(event.getAction()).isEqualTo("Scaling");
        assertThat(event.getNote()).isEqualTo("scaled to 3");
        assertThat(event.getReportingController()).isEqualTo("example.com/widgets");
        assertThat(event.getReportingInstance()).isEqualTo("widgets-0");
        assertThat(event.getEventTime()).isEqualTo(at(Duration.ZERO));
        assertThat(event.getSeries()).isNull();
    }

    @Test
    void repeatsBecomeOneSeriesWhoseCountIsRefreshedEveryThirtyMinutes() throws Exception {
        recorder.warning(web, "Invalid", "Validating", "bad size");
        nextWrite();
        time.advanceTimeBy(Duration.ofMinutes(1));
        recorder.warning(web, "Invalid", "Validating", "bad size");
        nextWrite(); // the second occurrence patches at once
        assertThat(stored()).singleElement().satisfies(e -> {
            assertThat(e.getSeries().getCount()).isEqualTo(2);
            assertThat(e.getSeries().getLastObservedTime()).isEqualTo(at(Duration.ofMinutes(1)));
        });

        for (int minute = 2; minute <= 4; minute++) {
            time.advanceTimeTo(Instant.ofEpochMilli(START).plus(Duration.ofMinutes(minute)));
            recorder.warning(web, "Invalid", "Validating", "bad size");
            time.advanceTime();
        }
        assertThat(stored().get(0).getSeries().getCount()).as("later ones wait for the refresh").isEqualTo(2);
        assertThat(requests("PATCH")).isEqualTo(1);

        time.advanceTimeTo(Instant.ofEpochMilli(START).plus(Duration.ofMinutes(5)));
        recorder.warning(web, "Invalid", "Validating", "bad size"); // keeps the series from finishing
        time.advanceTimeTo(Instant.ofEpochMilli(START).plus(Duration.ofMinutes(10)));
        recorder.warning(web, "Invalid", "Validating", "bad size");
        time.advanceTimeTo(Instant.ofEpochMilli(START).plus(Duration.ofMinutes(15)));
        recorder.warning(web, "Invalid", "Validating", "bad size");
        time.advanceTimeTo(Instant.ofEpochMilli(START).plus(Duration.ofMinutes(20)));
        recorder.warning(web, "Invalid", "Validating", "bad size");
        time.advanceTimeTo(Instant.ofEpochMilli(START).plus(Duration.ofMinutes(25)));
        recorder.warning(web, "Invalid", "Validating", "bad size");
        time.advanceTimeTo(Instant.ofEpochMilli(START).plus(Duration.ofMinutes(30)));
        nextWrite();

        assertThat(stored()).singleElement().satisfies(e -> {
            assertThat(e.getSeries().getCount()).isEqualTo(10);
            assertThat(e.getSeries().getLastObservedTime()).isEqualTo(at(Duration.ofMinutes(25)));
        });
        assertThat(requests("POST")).isEqualTo(1);
        assertThat(requests("PATCH")).isEqualTo(2);
    }

    @Test
    void aSeriesQuietForSixMinutesIsFinishedAndARepeatStartsANewEvent() throws Exception {
        for (int i = 0; i < 3; i++) {
            recorder.normal(web, "Synced", "Syncing", null);
            if (i < 2) {
                nextWrite();
            }
        }
        time.advanceTime();
        assertThat(stored().get(0).getSeries().getCount()).isEqualTo(2);

        time.advanceTimeBy(Duration.ofMinutes(6));
        ends.poll(30, TimeUnit.SECONDS);
        assertThat(stored()).singleElement().satisfies(e -> assertThat(e.getSeries().getCount()).isEqualTo(3));

        recorder.normal(web, "Synced", "Syncing", null);
        nextWrite();
        assertThat(stored()).hasSize(2);
        assertThat(stored()).filteredOn(e -> e.getSeries() == null).singleElement()
                .satisfies(e -> assertThat(e.getEventTime()).isEqualTo(at(Duration.ofMinutes(6))));
    }

    @Test
    void aDifferentNoteTypeOrObjectIsAnotherEvent() throws Exception {
        V1ConfigMap db = server.state().create(configMap("db"));
        recorder.normal(web, "Scaled", "Scaling", "to 3");
        recorder.normal(web, "Scaled", "Scaling", "to 4");
        recorder.warning(web, "Scaled", "Scaling", "to 3");
        recorder.normal(db, "Scaled", "Scaling", "to 3");
        for (int i = 0; i < 4; i++) {
            nextWrite();
        }

        assertThat(stored()).hasSize(4).allSatisfy(e -> assertThat(e.getSeries()).isNull());
        assertThat(stored()).extracting(e -> e.getMetadata().getName()).doesNotHaveDuplicates();
    }

    @Test
    void eachObjectMayRecordABurstOfTwentyFiveThenOnePerFiveMinutes() throws Exception {
        V1ConfigMap db = server.state().create(configMap("db"));
        for (int i = 0; i < 30; i++) {
            recorder.normal(web, "Step" + i, "Stepping", null);
        }
        recorder.normal(db, "Step", "Stepping", null);
        for (int i = 0; i < 26; i++) {
            nextWrite();
        }
        assertThat(stored()).filteredOn(e -> e.getRegarding().getName().equals("web")).hasSize(25);
        assertThat(droppedRateLimited()).isEqualTo(5);

        time.advanceTimeBy(Duration.ofMinutes(5));
        recorder.normal(web, "Later", "Stepping", null);
        recorder.normal(web, "TooSoon", "Stepping", null);
        nextWrite();
        assertThat(stored()).extracting(EventsV1Event::getReason).contains("Later").doesNotContain("TooSoon");
        assertThat(droppedRateLimited()).isEqualTo(6);
    }

    @Test
    void occurrencesPastTheBufferAreDroppedAndCounted() throws Exception {
        recorder.dispose();
        recorder = recorder(time).bufferSize(2).build();

        // from a task of the scheduler, which processes the occurrences only after it: all three wait at once
        time.schedule(() -> {
            recorder.normal(web, "One", "Stepping", null);
            recorder.normal(web, "Two", "Stepping", null);
            recorder.normal(web, "Three", "Stepping", null);
        });
        nextWrite();
        nextWrite();

        assertThat(stored()).extracting(EventsV1Event::getReason).containsExactlyInAnyOrder("One", "Two");
        assertThat(recorder.droppedBufferFull()).isEqualTo(1);
    }

    @Test
    void aRefusedWriteIsCountedNeverThrownAndTheNextOccurrenceCreatesAgain() throws Exception {
        server.faults().once(RequestInfo.method("POST").and(RequestInfo.pathContains("/events")), Fault.forbidden());

        recorder.normal(web, "Scaled", "Scaling", null);
        assertThat(nextWrite()).isInstanceOf(KubernetesApiException.Forbidden.class);
        assertThat(meters.get("controller_events_failed_total").functionCounter().count()).isEqualTo(1);

        recorder.normal(web, "Scaled", "Scaling", null);
        assertThat(nextWrite()).isInstanceOf(EventsV1Event.class);
        assertThat(stored()).singleElement().satisfies(e -> assertThat(e.getSeries()).isNull());
    }

    @Test
    void aTransientFailureIsTriedAgainTenSecondsLater() throws Exception {
        DelaySignallingScheduler signalling = new DelaySignallingScheduler(time);
        recorder.dispose();
        recorder = recorder(signalling).build();
        server.faults().times(2, RequestInfo.method("POST").and(RequestInfo.pathContains("/events")),
                Fault.internalError());

        recorder.normal(web, "Scaled", "Scaling", null);
        time.advanceTime();
        for (int retry = 0; retry < 2; retry++) {
            assertThat(signalling.delays.poll(30, TimeUnit.SECONDS)).isEqualTo(Duration.ofSeconds(10));
            time.advanceTimeBy(Duration.ofSeconds(9));
            assertThat(ends).isEmpty();
            time.advanceTimeBy(Duration.ofSeconds(1));
        }
        assertThat(nextWrite()).isInstanceOf(EventsV1Event.class);
        assertThat(requests("POST")).isEqualTo(3);
        assertThat(stored().get(0).getEventTime()).isEqualTo(at(Duration.ZERO));
    }

    @Test
    void aRepeatWhileTheEventIsBeingCreatedStartsTheSeriesOnceItIs() throws Exception {
        DelaySignallingScheduler signalling = new DelaySignallingScheduler(time);
        recorder.dispose();
        recorder = recorder(signalling).build();
        server.faults().once(RequestInfo.method("POST").and(RequestInfo.pathContains("/events")),
                Fault.internalError());

        recorder.normal(web, "Scaled", "Scaling", null);
        time.advanceTime();
        assertThat(signalling.delays.poll(30, TimeUnit.SECONDS)).isEqualTo(Duration.ofSeconds(10));
        time.advanceTimeBy(Duration.ofSeconds(4));
        recorder.normal(web, "Scaled", "Scaling", null); // the create is still being tried
        time.advanceTimeBy(Duration.ofSeconds(6));
        nextWrite();
        nextWrite();

        assertThat(stored()).singleElement().satisfies(e -> {
            assertThat(e.getEventTime()).isEqualTo(at(Duration.ZERO));
            assertThat(e.getSeries().getCount()).isEqualTo(2);
            assertThat(e.getSeries().getLastObservedTime()).isEqualTo(at(Duration.ofSeconds(4)));
        });
    }

    @Test
    void aRefreshWhileAWriteIsInFlightWritesWhenItEnds() throws Exception {
        DelaySignallingScheduler signalling = new DelaySignallingScheduler(time);
        recorder.dispose();
        recorder = recorder(signalling).build();
        time.advanceTimeTo(Instant.ofEpochMilli(START).plus(Duration.ofMinutes(25))); // runs up to the refresh
        recorder.normal(web, "Scaled", "Scaling", null);
        nextWrite();
        server.faults().once(RequestInfo.method("PATCH").and(RequestInfo.pathContains("/events/")),
                Fault.internalError());

        time.advanceTimeTo(Instant.ofEpochMilli(START).plus(Duration.ofSeconds(30 * 60 - 5)));
        recorder.normal(web, "Scaled", "Scaling", null);
        time.advanceTime();
        assertThat(signalling.delays.poll(30, TimeUnit.SECONDS)).isEqualTo(Duration.ofSeconds(10));
        time.advanceTimeBy(Duration.ofSeconds(2));
        recorder.normal(web, "Scaled", "Scaling", null);
        time.advanceTimeTo(Instant.ofEpochMilli(START).plus(Duration.ofMinutes(30))); // the refresh: a write in flight
        time.advanceTimeBy(Duration.ofSeconds(5)); // the patch of 2 is tried again
        nextWrite();
        nextWrite();

        assertThat(stored()).singleElement().satisfies(e -> {
            assertThat(e.getSeries().getCount()).isEqualTo(3);
            assertThat(e.getSeries().getLastObservedTime()).isEqualTo(at(Duration.ofSeconds(30 * 60 - 3)));
        });
        assertThat(requests("PATCH")).isEqualTo(3);
    }

    @Test
    void aSeriesWhoseEventExpiredIsCreatedAgainWithItsCount() throws Exception {
        recorder.normal(web, "Scaled", "Scaling", null);
        EventsV1Event created = (EventsV1Event) nextWrite();
        server.state().delete(created);

        time.advanceTimeBy(Duration.ofSeconds(3));
        recorder.normal(web, "Scaled", "Scaling", null);
        nextWrite();

        assertThat(stored()).singleElement().satisfies(e -> {
            assertThat(e.getMetadata().getName()).isEqualTo(created.getMetadata().getName());
            assertThat(e.getSeries().getCount()).isEqualTo(2);
            assertThat(e.getSeries().getLastObservedTime()).isEqualTo(at(Duration.ofSeconds(3)));
        });
    }

    @Test
    void aClusterScopedObjectsEventsGoToTheDefaultNamespace() throws Exception {
        V1Namespace shop = server.state().find(ResourceType.of(V1Namespace.class), null, "shop").orElseThrow();
        recorder.normal(shop, "Labelled", "Labelling", null);
        nextWrite();

        assertThat(stored()).singleElement().satisfies(e -> {
            assertThat(e.getMetadata().getNamespace()).isEqualTo("default");
            assertThat(e.getRegarding().getNamespace()).isNull();
        });
    }

    @Test
    void argumentsKubeApiServerWouldRefuseFailTheCallAndLongNotesAreCut() throws Exception {
        assertThatThrownBy(() -> recorder.normal(web, "", "Scaling", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> recorder.normal(web, "Scaled", "x".repeat(129), null))
                .isInstanceOf(IllegalArgumentException.class);

        recorder.normal(web, "Scaled", "Scaling", "é".repeat(600));
        nextWrite();
        assertThat(stored().get(0).getNote()).isEqualTo("é".repeat(512));
    }

    @Test
    void disposingStopsTheTimers() {
        Disposable stopped = recorder;
        assertThat(time.getScheduledTaskCount()).isPositive();

        stopped.dispose();

        assertThat(stopped.isDisposed()).isTrue();
        time.advanceTimeBy(Duration.ofHours(1));
        assertThat(ends).isEmpty();
    }

    private double droppedRateLimited() {
        return meters.get("controller_events_dropped_total").tag("reason", "rate_limited").functionCounter().count();
    }
}
