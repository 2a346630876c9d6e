package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.api;
import static io.reactiveinformer.watch.Fixtures.connectionRefused;
import static io.reactiveinformer.watch.Fixtures.decodeError;
import static io.reactiveinformer.watch.Fixtures.gone;
import static io.reactiveinformer.watch.Fixtures.tooLargeResourceVersion;
import static io.reactiveinformer.watch.Fixtures.tooManyRequests;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.watch.FailurePolicy.Decision;
import io.reactiveinformer.watch.FailurePolicy.Delay;
import io.reactiveinformer.watch.FailurePolicy.WatchClose;
import io.reactiveinformer.watch.ReflectorRun.Step;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.Exceptions;

class FailurePolicyTest {

    private static ReflectorException idle() {
        return new ReflectorException(ReflectorException.Reason.WATCH_IDLE, "idle", null);
    }

    @Test
    void aListThatFailedListsAgainAfterTheRetryDelay() {
        assertThat(FailurePolicy.afterList(api(500), "42", false)).isEqualTo(new Decision(Step.LIST, Delay.RETRY, false, false));
        assertThat(FailurePolicy.afterList(api(403), "42", true)).as("the flag is kept")
                .isEqualTo(new Decision(Step.LIST, Delay.RETRY, true, false));
    }

    @Test
    void aListAtAnUnavailableVersionListsFromEmptyAtOnceUnlessItAlreadyDid() {
        assertThat(FailurePolicy.afterList(gone(), "42", false)).isEqualTo(new Decision(Step.LIST, Delay.NONE, true, false));
        assertThat(FailurePolicy.afterList(tooLargeResourceVersion(), "42", false))
                .isEqualTo(new Decision(Step.LIST, Delay.NONE, true, false));
        assertThat(FailurePolicy.afterList(gone(), "", true)).isEqualTo(new Decision(Step.LIST, Delay.RETRY, true, false));
    }

    @Test
    void aWatchTheServerExpiredRelistsAfterTheInitialDelay() {
        assertThat(FailurePolicy.afterWatch(gone(), false)).as("410: relist from the last synced version")
                .isEqualTo(new Decision(Step.LIST, Delay.INITIAL, false, false));
        assertThat(FailurePolicy.afterWatch(gone(), true)).isEqualTo(new Decision(Step.LIST, Delay.INITIAL, false, false));
        assertThat(FailurePolicy.afterWatch(tooLargeResourceVersion(), false)).as("a version not reached: relist from \"\"")
                .isEqualTo(new Decision(Step.LIST, Delay.INITIAL, true, false));
    }

    @Test
    void anUnwellServerOrConnectionIsWatchedAgainAndTheConnectionCountsAsLost() {
        for (KubernetesClientException error : new KubernetesClientException[] {
                api(500), api(503), tooManyRequests(null), connectionRefused(), idle()}) {
            assertThat(FailurePolicy.afterWatch(error, false)).as(error.getMessage())
                    .isEqualTo(new Decision(Step.WATCH, Delay.RETRY, false, true));
        }
    }

    @Test
    void anythingElseOnAWatchRelistsAfterTheRetryDelay() {
        for (KubernetesClientException error : new KubernetesClientException[] {
                api(403), api(401), api(404), decodeError(),
                new ReflectorException(ReflectorException.Reason.UNEXPECTED_ERROR, "bug", null)}) {
            assertThat(FailurePolicy.afterWatch(error, true)).as(error.getMessage())
                    .isEqualTo(new Decision(Step.LIST, Delay.RETRY, true, false));
        }
    }

    @Test
    void resourceVersionUnavailableIsAGoneOrA504ForATooLargeVersion() {
        assertThat(FailurePolicy.isResourceVersionUnavailable(gone())).isTrue();
        assertThat(FailurePolicy.isResourceVersionUnavailable(api(410))).isTrue();
        assertThat(FailurePolicy.isResourceVersionUnavailable(tooLargeResourceVersion())).isTrue();
        assertThat(FailurePolicy.isResourceVersionUnavailable(KubernetesApiException.of(Fixtures.REQUEST, 504,
                new V1Status().code(504).message("Too large resource version: 9, current: 7"), null)))
                .as("by message, without the cause").isTrue();
        assertThat(FailurePolicy.isResourceVersionUnavailable(api(504))).isFalse();
        assertThat(FailurePolicy.isResourceVersionUnavailable(connectionRefused())).isFalse();
    }

    @Test
    void aWatchThatClosedIsTooShortEarlyOrAtItsTimeout() {
        assertThat(FailurePolicy.watchClosed(999, 0, 300_000)).isEqualTo(WatchClose.TOO_SHORT);
        assertThat(FailurePolicy.watchClosed(999, 1, 300_000)).as("an event makes it no failure").isEqualTo(WatchClose.EARLY);
        assertThat(FailurePolicy.watchClosed(1_000, 0, 300_000)).isEqualTo(WatchClose.EARLY);
        assertThat(FailurePolicy.watchClosed(298_999, 5, 300_000)).isEqualTo(WatchClose.EARLY);
        assertThat(FailurePolicy.watchClosed(299_000, 5, 300_000)).as("within the slack of the timeout")
                .isEqualTo(WatchClose.TIMED_OUT);
        assertThat(FailurePolicy.watchClosed(5_000, 5, Long.MAX_VALUE)).as("no timeout asked for").isEqualTo(WatchClose.EARLY);
    }

    @Test
    void onlyAStreamingListThatLastedItsWholeTimeoutShowsTheServerIgnoresIt() {
        assertThat(FailurePolicy.streamingListIgnored(299_000, 300_000)).isTrue();
        assertThat(FailurePolicy.streamingListIgnored(310_000, 300_000)).isTrue();
        assertThat(FailurePolicy.streamingListIgnored(298_999, 300_000)).isFalse();
    }

    @Test
    void aStreamingListIsRejectedByAFailureOfTheRequestItselfOnly() {
        assertThat(FailurePolicy.rejectsStreamingList(api(400))).isTrue();
        assertThat(FailurePolicy.rejectsStreamingList(api(422))).isTrue();
        for (KubernetesClientException error : new KubernetesClientException[] {
                api(401), api(403), api(404), gone(), api(500), tooManyRequests(null), connectionRefused(), idle()}) {
            assertThat(FailurePolicy.rejectsStreamingList(error)).as(error.getMessage()).isFalse();
        }
    }

    @Test
    void retryAfterIsTheServersNonNegativeDelayBoundedByTheCap() {
        Duration cap = Duration.ofSeconds(30);
        assertThat(FailurePolicy.retryAfter(tooManyRequests(Duration.ofSeconds(5)), cap)).contains(Duration.ofSeconds(5));
        assertThat(FailurePolicy.retryAfter(tooManyRequests(Duration.ofMinutes(5)), cap)).contains(cap);
        assertThat(FailurePolicy.retryAfter(tooManyRequests(Duration.ofSeconds(-1)), cap)).isEmpty();
        assertThat(FailurePolicy.retryAfter(tooManyRequests(null), cap)).isEmpty();
        assertThat(FailurePolicy.retryAfter(connectionRefused(), cap)).isEmpty();
    }

    @Test
    void aListerWatchersOtherFailureIsAnUnexpectedErrorAndJvmErrorsAreNotRecoverable() {
        KubernetesClientException refused = connectionRefused();
        assertThat(FailurePolicy.clientException(refused)).isSameAs(refused);
        assertThat(FailurePolicy.clientException(Exceptions.propagate(refused))).as("unwrapped").isSameAs(refused);
        assertThat(FailurePolicy.clientException(new IllegalStateException("bug")))
                .isInstanceOfSatisfying(ReflectorException.class, e -> assertThat(e.reason())
                        .isEqualTo(ReflectorException.Reason.UNEXPECTED_ERROR));
        assertThat(FailurePolicy.recoverable(new IllegalStateException("bug"))).isTrue();
        assertThat(FailurePolicy.recoverable(new OutOfMemoryError())).isFalse();
    }
}
