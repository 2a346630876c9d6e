package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.added;
import static io.reactiveinformer.watch.Fixtures.api;
import static io.reactiveinformer.watch.Fixtures.bookmark;
import static io.reactiveinformer.watch.Fixtures.closing;
import static io.reactiveinformer.watch.Fixtures.cm;
import static io.reactiveinformer.watch.Fixtures.connectionRefused;
import static io.reactiveinformer.watch.Fixtures.decodeError;
import static io.reactiveinformer.watch.Fixtures.failed;
import static io.reactiveinformer.watch.Fixtures.failing;
import static io.reactiveinformer.watch.Fixtures.gone;
import static io.reactiveinformer.watch.Fixtures.open;
import static io.reactiveinformer.watch.Fixtures.page;
import static io.reactiveinformer.watch.Fixtures.reflector;
import static io.reactiveinformer.watch.Fixtures.tooManyRequests;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.watch.ReflectorEvent.Listed;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** How each kind of failure is reported, how long the reflector waits, and whether it relists or re-watches. */
@Timeout(30)
class ReflectorFailureTest {

    private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
    private final ScriptedListerWatcher<V1ConfigMap> lw = new ScriptedListerWatcher<>(scheduler);

    private StepVerifier.FirstStep<ReflectorEvent<V1ConfigMap>> verify() {
        return StepVerifier.withVirtualTime(() -> reflector(lw, scheduler).events(), () -> scheduler, Long.MAX_VALUE);
    }

    private List<String> listVersions() {
        return lw.listCalls().stream().map(call -> call.options().resourceVersion()).toList();
    }

    @Test
    void tooManyRequestsWithRetryAfterWaitsExactlyThatLongThenWatchesAgainWithoutRelisting() {
        lw.listReturns(page("10", null))
                .watchReturns(failing(tooManyRequests(Duration.ofSeconds(7)), added(cm("a", "11"))))
                .watchReturns(open(bookmark("12")));

        verify().expectNextCount(2)
                .assertNext(failed(KubernetesApiException.TooManyRequests.class, 1, Duration.ofSeconds(7)))
                .expectNoEvent(Duration.ofSeconds(7).minusMillis(1))
                .then(() -> assertThat(lw.watchCalls()).hasSize(1))
                .thenAwait(Duration.ofMillis(1))
                .expectNext(new ReflectorEvent.Bookmark<>("12"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).hasSize(1);
        assertThat(lw.watch(1).resourceVersion()).isEqualTo("11");
        assertThat(lw.watchCalls().get(1).atMillis()).isEqualTo(7_000);
    }

    @Test
    void tooManyRequestsWithoutRetryAfterBacksOff() {
        lw.listReturns(page("10", null))
                .watchFails(tooManyRequests(null))
                .watchFails(tooManyRequests(null));

        verify().expectNextCount(1)
                .assertNext(failed(KubernetesApiException.TooManyRequests.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .assertNext(failed(KubernetesApiException.TooManyRequests.class, 2, Duration.ofMillis(1_600)))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).hasSize(1);
        assertThat(lw.watchCalls()).extracting(call -> call.options().resourceVersion()).containsExactly("10", "10");
    }

    @Test
    void aRetryAfterShorterThanTheBackoffNeverMakesTheRetryImmediate() {
        // Retry-After: 0, or an HTTP date already past by our clock: the backoff is the floor
        lw.listReturns(page("10", null))
                .watchFails(tooManyRequests(Duration.ZERO))
                .watchFails(tooManyRequests(Duration.ZERO))
                .watchFails(tooManyRequests(Duration.ofSeconds(1)));

        verify().expectNextCount(1)
                .assertNext(failed(KubernetesApiException.TooManyRequests.class, 1, Duration.ofMillis(800)))
                .expectNoEvent(Duration.ofMillis(800))
                .assertNext(failed(KubernetesApiException.TooManyRequests.class, 2, Duration.ofMillis(1_600)))
                .expectNoEvent(Duration.ofMillis(1_600))
                .assertNext(failed(KubernetesApiException.TooManyRequests.class, 3, Duration.ofMillis(3_200)))
                .thenCancel()
                .verify();

        assertThat(lw.watchCalls()).extracting(call -> call.atMillis()).containsExactly(0L, 800L, 2_400L);
    }

    @Test
    void retryAfterBeyondTheBackoffCapIsClampedToTheCap() {
        lw.listFails(tooManyRequests(Duration.ofHours(1))).listReturns(page("10", null));

        verify().assertNext(failed(KubernetesApiException.TooManyRequests.class, 1, Duration.ofSeconds(30)))
                .expectNoEvent(Duration.ofSeconds(30))
                .expectNext(new Listed<>(List.of(), "10"))
                .thenCancel()
                .verify();
    }

    @Test
    void transportErrorBacksOffAndWatchesAgainFromTheLastVersion() {
        lw.listReturns(page("10", null))
                .watchReturns(failing(connectionRefused(), added(cm("a", "11")), bookmark("15")))
                .watchFails(connectionRefused())
                .watchReturns(open(bookmark("16")));

        verify().expectNextCount(3)
                .assertNext(failed(TransportException.class, 1, Duration.ofMillis(800)))
                .expectNoEvent(Duration.ofMillis(800))
                .assertNext(failed(TransportException.class, 2, Duration.ofMillis(1_600)))
                .expectNoEvent(Duration.ofMillis(1_600))
                .expectNext(new ReflectorEvent.Bookmark<>("16"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).hasSize(1);
        assertThat(lw.watchCalls()).extracting(call -> call.options().resourceVersion())
                .containsExactly("10", "15", "15");
    }

    @Test
    void anExpiredWatchRelistsAfterTheInitialDelayNotAfterTheBackoffEarlierOutagesGrew() {
        lw.listReturns(page("10", null))
                .watchFails(connectionRefused())
                .watchFails(connectionRefused())
                .watchFails(connectionRefused())
                .watchFails(gone())
                .listReturns(page("20", null))
                .watchReturns(open(bookmark("21")));

        verify().expectNextCount(1)
                .assertNext(failed(TransportException.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .assertNext(failed(TransportException.class, 2, Duration.ofMillis(1_600)))
                .thenAwait(Duration.ofMillis(1_600))
                .assertNext(failed(TransportException.class, 3, Duration.ofMillis(3_200)))
                .thenAwait(Duration.ofMillis(3_200))
                .assertNext(failed(KubernetesApiException.Gone.class, 4, Duration.ofMillis(800)))
                .expectNoEvent(Duration.ofMillis(800))
                .assertNext(event -> assertThat(event).isInstanceOf(Listed.class))
                .expectNext(new ReflectorEvent.Bookmark<>("21"))
                .thenCancel()
                .verify();

        assertThat(listVersions()).hasSize(2).last().isEqualTo("10");
        // relisted 800 ms after the 410, where the grown backoff would have waited 6.4 s
        assertThat(lw.listCalls().get(1).atMillis()).isEqualTo(800 + 1_600 + 3_200 + 800);
    }

    @Test
    void serverErrorBacksOffAndWatchesAgain() {
        lw.listReturns(page("10", null))
                .watchReturns(failing(api(500), bookmark("15")))
                .watchReturns(open(bookmark("16")));

        verify().expectNextCount(2)
                .assertNext(failed(KubernetesApiException.ServerError.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new ReflectorEvent.Bookmark<>("16"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).hasSize(1);
        assertThat(lw.watch(1).resourceVersion()).isEqualTo("15");
    }

    @Test
    void watchThatClosesWithinASecondWithoutEventsLeadsToARelist() {
        lw.listReturns(page("10", null))
                .watchReturns(closing(Duration.ofMillis(999), scheduler))
                .listReturns(page("20", null));

        verify().expectNextCount(1)
                .expectNoEvent(Duration.ofMillis(999))
                .assertNext(failed(ReflectorException.Reason.WATCH_TOO_SHORT, 1, Duration.ofMillis(800)))
                .expectNoEvent(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(), "20"))
                .thenCancel()
                .verify();

        assertThat(listVersions()).containsExactly("0", "10");
    }

    @Test
    void decodeErrorMidStreamLeadsToARelistSoTheCacheIsNeverSilentlyStale() {
        lw.listReturns(page("10", null))
                .watchReturns(failing(decodeError(), added(cm("a", "11"))))
                .listReturns(page("12", null, cm("a", "11")));

        verify().expectNextCount(2)
                .assertNext(failed(DecodeException.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(cm("a", "11")), "12"))
                .thenCancel()
                .verify();

        assertThat(listVersions()).containsExactly("0", "11");
    }

    @Test
    void forbiddenListIsReportedWithGrowingCountsAndDelaysUntilAccessIsGranted() {
        lw.listFails(api(403)).listFails(api(403)).listFails(api(403))
                .listReturns(page("10", null))
                .watchFails(api(403))
                .listReturns(page("11", null));

        verify().assertNext(failed(KubernetesApiException.Forbidden.class, 1, Duration.ofMillis(800)))
                .expectNoEvent(Duration.ofMillis(800))
                .assertNext(failed(KubernetesApiException.Forbidden.class, 2, Duration.ofMillis(1_600)))
                .expectNoEvent(Duration.ofMillis(1_600))
                .assertNext(failed(KubernetesApiException.Forbidden.class, 3, Duration.ofMillis(3_200)))
                .expectNoEvent(Duration.ofMillis(3_200))
                .expectNext(new Listed<>(List.of(), "10"))
                .as("a success resets the count; the delay keeps growing until a healthy period passes")
                .assertNext(failed(KubernetesApiException.Forbidden.class, 1, Duration.ofMillis(6_400)))
                .expectNoEvent(Duration.ofMillis(6_400))
                .expectNext(new Listed<>(List.of(), "11"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).extracting(call -> call.atMillis())
                .containsExactly(0L, 800L, 2_400L, 5_600L, 12_000L);
        assertThat(listVersions()).containsExactly("0", "0", "0", "0", "10");
    }

    @Test
    void backoffStartsOverAfterTwoHealthyMinutes() {
        lw.listFails(api(401)).listFails(api(401))
                .listReturns(page("10", null))
                .watchReturns(failing(connectionRefused(), bookmark("11"))
                        .delaySubscription(Duration.ofMinutes(2), scheduler))
                .watchReturns(open(bookmark("12")));

        verify().assertNext(failed(KubernetesApiException.Unauthorized.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .assertNext(failed(KubernetesApiException.Unauthorized.class, 2, Duration.ofMillis(1_600)))
                .thenAwait(Duration.ofMillis(1_600))
                .expectNext(new Listed<>(List.of(), "10"))
                .thenAwait(Duration.ofMinutes(2))
                .expectNextCount(1)
                .assertNext(failed(TransportException.class, 1, Duration.ofMillis(800)))
                .thenCancel()
                .verify();
    }

    @Test
    void missingResourceOnWatchLeadsToARelist() {
        lw.listReturns(page("10", null))
                .watchFails(api(404))
                .listFails(api(404));

        verify().expectNextCount(1)
                .assertNext(failed(KubernetesApiException.NotFound.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .assertNext(failed(KubernetesApiException.NotFound.class, 2, Duration.ofMillis(1_600)))
                .thenCancel()
                .verify();

        assertThat(listVersions()).containsExactly("0", "10");
    }

    @Test
    void listerWatcherBreakingItsContractIsReportedAndRelisted() {
        lw.listReturns(page("10", null))
                .watchReturns(Flux.<WatchEvent<V1ConfigMap>>error(new IllegalStateException("bug")))
                .listReturns(page("11", null));

        verify().expectNextCount(1)
                .assertNext(failed(ReflectorException.Reason.UNEXPECTED_ERROR, 1, Duration.ofMillis(800))
                        .andThen(e -> assertThat(((ReflectorEvent.Failed<?>) e).error())
                                .hasCauseInstanceOf(IllegalStateException.class)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(), "11"))
                .thenCancel()
                .verify();
    }

    @Test
    void jvmErrorsAreNotSwallowed() {
        lw.listReturns(page("10", null))
                .watchReturns(Flux.<WatchEvent<V1ConfigMap>>error(new AssertionError("fatal")));

        verify().expectNextCount(1)
                .expectErrorMessage("fatal")
                .verify();
    }

    @Test
    void failedCarriesTheVersionTheRetryResumesFrom() {
        lw.listReturns(page("10", null))
                .watchReturns(failing(connectionRefused(), bookmark("15")));

        verify().expectNextCount(2)
                .assertNext(e -> assertThat(e.resourceVersion()).isEqualTo("15"))
                .thenCancel()
                .verify();
    }
}
