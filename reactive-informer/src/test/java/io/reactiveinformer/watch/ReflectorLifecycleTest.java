package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.added;
import static io.reactiveinformer.watch.Fixtures.api;
import static io.reactiveinformer.watch.Fixtures.cm;
import static io.reactiveinformer.watch.Fixtures.failed;
import static io.reactiveinformer.watch.Fixtures.page;
import static io.reactiveinformer.watch.Fixtures.reflector;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.WatchEvent;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Cancellation and backpressure. */
@Timeout(30)
class ReflectorLifecycleTest {

    private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
    private final ScriptedListerWatcher<V1ConfigMap> lw = new ScriptedListerWatcher<>(scheduler);

    private StepVerifier.FirstStep<ReflectorEvent<V1ConfigMap>> verify() {
        return StepVerifier.withVirtualTime(() -> reflector(lw, scheduler).events(), () -> scheduler, Long.MAX_VALUE);
    }

    @Test
    void cancellingClosesTheListInFlight() {
        lw.listHangs();

        verify().expectSubscription()
                .then(() -> assertThat(lw.listCalls()).hasSize(1))
                .thenCancel()
                .verify();

        assertThat(lw.cancelledLists()).isEqualTo(1);
    }

    @Test
    void cancellingClosesTheWatchInFlight() {
        lw.listReturns(page("10", null));

        verify().expectNextCount(1)
                .then(() -> assertThat(lw.watchCalls()).hasSize(1))
                .thenCancel()
                .verify();

        assertThat(lw.cancelledWatches()).isEqualTo(1);
    }

    @Test
    void cancellingDuringABackoffStopsEverything() {
        lw.listFails(api(403));

        verify().assertNext(failed(KubernetesApiException.Forbidden.class, 1, Duration.ofMillis(800)))
                .thenCancel()
                .verify();
        scheduler.advanceTimeBy(Duration.ofMinutes(10));

        assertThat(lw.listCalls()).hasSize(1);
        assertThat(lw.watchCalls()).isEmpty();
    }

    @Test
    void watchEventsAreRequestedOnlyAsTheConsumerRequests() {
        lw.listReturns(page("10", null))
                .watchReturns(Flux.range(11, 10_000).map(i -> added(cm("o" + i, Integer.toString(i)))));

        StepVerifier.create(reflector(lw, scheduler).events(), 0)
                .thenRequest(1)
                .expectNextCount(1)
                .then(() -> assertThat(lw.watchDemand()).as("nothing requested before the consumer asks").isZero())
                .thenRequest(5)
                .expectNextCount(5)
                .then(() -> assertThat(lw.watchDemand()).isEqualTo(5))
                .thenRequest(100)
                .expectNextCount(100)
                .then(() -> assertThat(lw.watchDemand()).isEqualTo(105))
                .thenCancel()
                .verify();
    }

    @Test
    void eventsKeepTheWatchOrder() {
        lw.listReturns(page("10", null))
                .watchReturns(Flux.range(11, 1_000).map(i -> added(cm("o", Integer.toString(i)))));

        StepVerifier.create(reflector(lw, scheduler).events().skip(1).take(1_000)
                        .map(ReflectorEvent::resourceVersion).map(Integer::parseInt)
                        .buffer(2, 1).filter(pair -> pair.size() == 2 && pair.get(1) != pair.get(0) + 1))
                .verifyComplete();
    }

    @Test
    void watchEventWithoutAVersionDoesNotLoseTheLastOne() {
        V1ConfigMap unversioned = cm("a", null);
        lw.listReturns(page("10", null))
                .watchReturns(Flux.just(added(unversioned), new WatchEvent<>(WatchEvent.Type.BOOKMARK, cm("x", null)))
                        .concatWith(Flux.error(Fixtures.connectionRefused())));

        verify().expectNextCount(2)
                .assertNext(e -> assertThat(e.resourceVersion()).isEqualTo("10"))
                .thenAwait(Duration.ofMillis(800))
                .thenCancel()
                .verify();

        assertThat(lw.watch(1).resourceVersion()).isEqualTo("10");
    }
}
