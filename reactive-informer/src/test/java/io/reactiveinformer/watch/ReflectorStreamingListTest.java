package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.added;
import static io.reactiveinformer.watch.Fixtures.api;
import static io.reactiveinformer.watch.Fixtures.bookmark;
import static io.reactiveinformer.watch.Fixtures.closing;
import static io.reactiveinformer.watch.Fixtures.cm;
import static io.reactiveinformer.watch.Fixtures.deleted;
import static io.reactiveinformer.watch.Fixtures.failed;
import static io.reactiveinformer.watch.Fixtures.failing;
import static io.reactiveinformer.watch.Fixtures.gone;
import static io.reactiveinformer.watch.Fixtures.initialEventsEnd;
import static io.reactiveinformer.watch.Fixtures.modified;
import static io.reactiveinformer.watch.Fixtures.open;
import static io.reactiveinformer.watch.Fixtures.page;
import static io.reactiveinformer.watch.Fixtures.reflector;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ReflectorEvent.Applied;
import io.reactiveinformer.watch.ReflectorEvent.Listed;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Streaming lists (sendInitialEvents) and the fallback to LIST. */
@Timeout(30)
class ReflectorStreamingListTest {

    private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
    private final ScriptedListerWatcher<V1ConfigMap> lw = new ScriptedListerWatcher<>(scheduler);
    private final V1ConfigMap a = cm("a", "5");
    private final V1ConfigMap b = cm("b", "6");

    private StepVerifier.FirstStep<ReflectorEvent<V1ConfigMap>> verify() {
        ReflectorOptions options = ReflectorOptions.defaults().withStreamingList(true);
        return StepVerifier.withVirtualTime(() -> reflector(lw, scheduler, 0.0, options).events(), () -> scheduler,
                Long.MAX_VALUE);
    }

    @Test
    void initialEventsUpToTheEndBookmarkBecomeOneListedThenTheStreamGoesOnAsAWatch() {
        V1ConfigMap a2 = cm("a", "8");
        lw.watchReturns(closing(Duration.ofMinutes(5), scheduler,
                        added(a), bookmark("6"), added(b), initialEventsEnd("7"), modified(a2)))
                .watchReturns(open(bookmark("9")));

        verify().expectNext(new Listed<>(List.of(a, b), "7"))
                .expectNext(new Applied<>(WatchEvent.Type.MODIFIED, a2))
                .expectNoEvent(Duration.ofMinutes(5))
                .expectNext(new ReflectorEvent.Bookmark<>("9"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).isEmpty();
        assertThat(lw.watch(0)).isEqualTo(new WatchOptions(null, null, "", "NotOlderThan", 300, true, true));
        assertThat(lw.watch(1)).as("after a streaming list, an ordinary watch")
                .isEqualTo(new WatchOptions(null, null, "8", null, 300, true, false));
    }

    @Test
    void initialStateHonoursChangesAmongTheInitialEvents() {
        lw.watchReturns(open(added(a), added(b), deleted(cm("a", "6")), added(cm("c", "7")), initialEventsEnd("7")));

        verify().expectNext(new Listed<>(List.of(b, cm("c", "7")), "7"))
                .thenCancel()
                .verify();
    }

    @Test
    void afterAFailedWatchTheNextStreamingListStartsFromTheLastVersion() {
        lw.watchReturns(failing(api(403), added(a), initialEventsEnd("7"), bookmark("9")))
                .watchReturns(open(initialEventsEnd("10")));

        verify().expectNextCount(2)
                .assertNext(failed(KubernetesApiException.Forbidden.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(), "10"))
                .thenCancel()
                .verify();

        assertThat(lw.watch(1)).isEqualTo(new WatchOptions(null, null, "9", "NotOlderThan", 300, true, true));
    }

    @Test
    void rejectedStreamingListFallsBackToListAtOnceAndForGood() {
        lw.watchFails(api(422))
                .listReturns(page("10", null, a))
                .watchReturns(failing(gone(), bookmark("11")))
                .listReturns(page("12", null, a));

        verify().expectNext(new Listed<>(List.of(a), "10"))
                .expectNextCount(1)
                .assertNext(failed(KubernetesApiException.Gone.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(a), "12"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).extracting(call -> call.options().resourceVersion()).containsExactly("0", "11");
        assertThat(lw.listCalls().get(0).atMillis()).isZero();
        assertThat(lw.watchCalls()).extracting(call -> call.options().sendInitialEvents())
                .containsExactly(true, false);
    }

    @Test
    void streamClosedEarlyWithoutTheEndBookmarkListsOnceThenStreamsAgain() {
        lw.watchReturns(Flux.just(added(a), bookmark("6")))
                .listReturns(page("10", null, a))
                .watchReturns(failing(gone()))
                .watchReturns(open(initialEventsEnd("20")));

        verify().expectNext(new Listed<>(List.of(a), "10"))
                .assertNext(failed(KubernetesApiException.Gone.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(), "20"))
                .thenCancel()
                .verify();

        assertThat(lw.list(0).resourceVersion()).isEqualTo("0");
        assertThat(lw.watchCalls()).extracting(call -> call.options().sendInitialEvents())
                .as("a transient close gives up streaming for one attempt only").containsExactly(true, false, true);
        assertThat(lw.watch(2).resourceVersion()).isEqualTo("10");
    }

    @Test
    void aServerThatWatchesForItsWholeTimeoutWithoutTheEndBookmarkIsListedFromThenOn() {
        lw.watchReturns(closing(Duration.ofSeconds(300), scheduler, added(a), bookmark("6")))
                .listReturns(page("10", null, a))
                .watchReturns(failing(gone()))
                .listReturns(page("12", null, a));

        verify().expectSubscription()
                .expectNoEvent(Duration.ofSeconds(300))
                .expectNext(new Listed<>(List.of(a), "10"))
                .assertNext(failed(KubernetesApiException.Gone.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(a), "12"))
                .thenCancel()
                .verify();

        assertThat(lw.watchCalls()).extracting(call -> call.options().sendInitialEvents())
                .as("it ignores sendInitialEvents: no more streaming lists").containsExactly(true, false);
        assertThat(lw.listCalls()).extracting(call -> call.options().resourceVersion()).containsExactly("0", "10");
    }

    @Test
    void accessDeniedIsNotARejectionOfStreamingSoItIsRetriedAsAStreamingList() {
        lw.watchFails(api(403))
                .watchReturns(open(initialEventsEnd("7")));

        verify().assertNext(failed(KubernetesApiException.Forbidden.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(), "7"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).isEmpty();
        assertThat(lw.watchCalls()).extracting(call -> call.options().sendInitialEvents()).containsExactly(true, true);
    }

    @Test
    void expiredVersionInAStreamingListRetriesAtOnceFromEmptyVersion() {
        lw.watchReturns(failing(gone(), added(a), initialEventsEnd("7")))
                .watchFails(gone())
                .watchReturns(open(initialEventsEnd("20")));

        verify().expectNextCount(1)
                .assertNext(failed(KubernetesApiException.Gone.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .assertNext(failed(KubernetesApiException.Gone.class, 2, Duration.ZERO))
                .expectNext(new Listed<>(List.of(), "20"))
                .thenCancel()
                .verify();

        assertThat(lw.watchCalls()).extracting(call -> call.options().resourceVersion()).containsExactly("", "7", "");
        assertThat(lw.watchCalls()).extracting(call -> call.options().sendInitialEvents())
                .containsExactly(true, true, true);
    }

    @Test
    void serverErrorAfterTheInitialEventsWatchesAgainWithoutStreaming() {
        lw.watchReturns(failing(api(500), added(a), initialEventsEnd("7")))
                .watchReturns(open(bookmark("8")));

        verify().expectNextCount(1)
                .assertNext(failed(KubernetesApiException.ServerError.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new ReflectorEvent.Bookmark<>("8"))
                .thenCancel()
                .verify();

        assertThat(lw.watch(1)).isEqualTo(new WatchOptions(null, null, "7", null, 300, true, false));
    }

    @Test
    void idleDuringTheInitialEventsRetriesTheStreamingList() {
        ReflectorOptions options = ReflectorOptions.defaults().withStreamingList(true)
                .withIdleTimeout(Duration.ofMinutes(1));
        lw.watchReturns(open(added(a)))
                .watchReturns(open(added(a), initialEventsEnd("7")));

        StepVerifier.withVirtualTime(() -> reflector(lw, scheduler, 0.0, options).events(), () -> scheduler,
                        Long.MAX_VALUE)
                .expectSubscription()
                .expectNoEvent(Duration.ofMinutes(1).minusMillis(1))
                .thenAwait(Duration.ofMillis(1))
                .assertNext(failed(ReflectorException.Reason.WATCH_IDLE, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(a), "7"))
                .thenCancel()
                .verify();

        assertThat(lw.watchCalls()).extracting(call -> call.options().sendInitialEvents()).containsExactly(true, true);
    }
}
