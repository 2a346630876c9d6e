package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.controller.EventRecorder;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * {@code events.k8s.io/v1} Events: the verbs a recorder uses, and a recorder's series as the server stores them
 * (its timers in virtual time, its writes real).
 */
abstract class EventsContract extends ClientContract {

    private static final OffsetDateTime AT = OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 123_456_000, ZoneOffset.UTC);

    EventsContract(Backend backend) {
        super(backend);
    }

    private ResourceClient<EventsV1Event> events(String namespace) {
        return admin().resource(EventsV1Event.class).inNamespace(namespace);
    }

    @Test
    void eventsAreCreatedReadListedPatchedAndReplaced() {
        String ns = namespace("events-verbs");
        V1ConfigMap web = await(configMaps(ns).create(configMap("web", Map.of("k", "v"))));
        EventsV1Event event = new EventsV1Event().apiVersion("events.k8s.io/v1").kind("Event")
                .metadata(new V1ObjectMeta().name("web.1"))
                .eventTime(AT)
                .regarding(new V1ObjectReference().apiVersion("v1").kind("ConfigMap").namespace(ns).name("web")
                        .uid(web.getMetadata().getUid()))
                .type("Normal").reason("Scaled").action("Scaling").note("to 3")
                .reportingController("example.com/widgets").reportingInstance("widgets-0");

        EventsV1Event created = await(events(ns).create(event));
        assertThat(created.getEventTime()).isEqualTo(AT);
        assertThat(await(events(ns).get("web.1")).getNote()).isEqualTo("to 3");
        assertThat(await(events(ns).list(ListOptions.none())).items()).extracting(e -> e.getMetadata().getName())
                .containsExactly("web.1");

        EventsV1Event patched = await(events(ns).patch("web.1", PatchType.MERGE,
                "{\"series\":{\"count\":2,\"lastObservedTime\":\"2026-01-01T00:01:00.000000Z\"}}"));
        assertThat(patched.getSeries().getCount()).isEqualTo(2);
        assertThat(patched.getSeries().getLastObservedTime()).isEqualTo(AT.withNano(0).plusMinutes(1));

        patched.getSeries().setCount(3);
        assertThat(await(events(ns).replace(patched)).getSeries().getCount()).isEqualTo(3);
    }

    @Test
    void aRecordersRepeatsAreOneEventWithASeries() {
        String ns = namespace("events-series");
        V1ConfigMap web = await(configMaps(ns).create(configMap("web", Map.of("k", "v"))));
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        time.advanceTimeTo(Instant.parse("2026-01-01T00:00:00Z"));
        EventRecorder recorder = EventRecorder.builder(admin().resource(EventsV1Event.class), "example.com/widgets",
                "widgets-0").scheduler(time).build();
        try {
            String rv = await(events(ns).list(ListOptions.none())).resourceVersion();
            StepVerifier.create(events(ns).watch(WatchOptions.from(rv)))
                    .then(() -> recorder.warning(web, "Invalid", "Validating", "bad size"))
                    .assertNext(e -> assertThat(describe(e)).startsWith("ADDED web."))
                    .then(() -> {
                        time.advanceTimeBy(Duration.ofMinutes(1));
                        recorder.warning(web, "Invalid", "Validating", "bad size");
                    })
                    .assertNext(e -> assertThat(countOf(e)).isEqualTo(2))
                    .then(() -> {
                        time.advanceTimeBy(Duration.ofMinutes(1));
                        recorder.warning(web, "Invalid", "Validating", "bad size");
                        // quiet for 6 minutes (at the sweep of minute 12): the series finishes with its last count
                        time.advanceTimeBy(Duration.ofMinutes(28));
                    })
                    .assertNext(e -> {
                        assertThat(countOf(e)).isEqualTo(3);
                        EventsV1Event event = (EventsV1Event) e.object();
                        assertThat(event.getSeries().getLastObservedTime())
                                .isEqualTo(OffsetDateTime.parse("2026-01-01T00:02:00Z"));
                        assertThat(event.getRegarding().getUid()).isEqualTo(web.getMetadata().getUid());
                        assertThat(event.getReportingController()).isEqualTo("example.com/widgets");
                    })
                    .thenCancel()
                    .verify(TIMEOUT);
            assertThat(await(events(ns).list(ListOptions.none())).items()).hasSize(1);
        } finally {
            recorder.dispose();
            time.dispose();
        }
    }

    private static int countOf(WatchEvent<?> event) {
        assertThat(event.type().toString()).isEqualTo("MODIFIED");
        return ((EventsV1Event) event.object()).getSeries().getCount();
    }
}
