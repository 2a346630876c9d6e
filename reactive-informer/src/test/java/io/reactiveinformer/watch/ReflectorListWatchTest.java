package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.LISTING;
import static io.reactiveinformer.watch.Fixtures.added;
import static io.reactiveinformer.watch.Fixtures.bookmark;
import static io.reactiveinformer.watch.Fixtures.closing;
import static io.reactiveinformer.watch.Fixtures.cm;
import static io.reactiveinformer.watch.Fixtures.deleted;
import static io.reactiveinformer.watch.Fixtures.failed;
import static io.reactiveinformer.watch.Fixtures.failing;
import static io.reactiveinformer.watch.Fixtures.gone;
import static io.reactiveinformer.watch.Fixtures.modified;
import static io.reactiveinformer.watch.Fixtures.open;
import static io.reactiveinformer.watch.Fixtures.page;
import static io.reactiveinformer.watch.Fixtures.reflector;
import static io.reactiveinformer.watch.Fixtures.tooLargeResourceVersion;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ReflectorEvent.Applied;
import io.reactiveinformer.watch.ReflectorEvent.Bookmark;
import io.reactiveinformer.watch.ReflectorEvent.Deleted;
import io.reactiveinformer.watch.ReflectorEvent.Listed;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The list-then-watch loop on the happy path, resourceVersion tracking and the relist version choice. */
@Timeout(30)
class ReflectorListWatchTest {

    private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
    private final ScriptedListerWatcher<V1ConfigMap> lw = new ScriptedListerWatcher<>(scheduler);

    private StepVerifier.FirstStep<ReflectorEvent<V1ConfigMap>> verify(Reflector<V1ConfigMap> reflector) {
        return StepVerifier.withVirtualTime(reflector::events, () -> scheduler, Long.MAX_VALUE);
    }

    @Test
    void listsAtZeroThenWatchesFromTheListedVersionAndTracksEveryVersion() {
        V1ConfigMap a = cm("a", "8");
        V1ConfigMap b = cm("b", "9");
        V1ConfigMap c = cm("c", "11");
        V1ConfigMap a2 = cm("a", "12");
        V1ConfigMap b2 = cm("b", "13");
        lw.listReturns(page("10", null, a, b))
                .watchReturns(open(added(c), modified(a2), deleted(b2), bookmark("14")));

        verify(reflector(lw, scheduler))
                .expectNext(new Listed<>(List.of(a, b), "10"))
                .expectNext(new Applied<>(WatchEvent.Type.ADDED, c))
                .expectNext(new Applied<>(WatchEvent.Type.MODIFIED, a2))
                .expectNext(new Deleted<>(b2))
                .expectNext(new Bookmark<>("14"))
                .thenCancel()
                .verify();

        assertThat(lw.list(0)).isEqualTo(new ListOptions(null, null, 500, null, "0", null));
        assertThat(lw.watch(0)).isEqualTo(new WatchOptions(null, null, "10", null, 300, true, false));
        assertThat(lw.cancelledWatches()).isEqualTo(1);
    }

    @Test
    void everyEventCarriesTheResourceVersionItSyncsTo() {
        lw.listReturns(page("10", null, cm("a", "3")))
                .watchReturns(open(added(cm("c", "11")), bookmark("14"), deleted(cm("c", "15"))));

        verify(reflector(lw, scheduler))
                .assertNext(e -> assertThat(e.resourceVersion()).isEqualTo("10"))
                .assertNext(e -> assertThat(e.resourceVersion()).isEqualTo("11"))
                .assertNext(e -> assertThat(e.resourceVersion()).isEqualTo("14"))
                .assertNext(e -> assertThat(e.resourceVersion()).isEqualTo("15"))
                .thenCancel()
                .verify();
    }

    @Test
    void passesSelectorsToEveryRequest() {
        lw.listReturns(page("10", null)).watchReturns(open(bookmark("11")));
        ReflectorOptions options = LISTING.withSelectors("app=web", "metadata.name=x");

        verify(reflector(lw, scheduler, 0.0, options))
                .expectNextCount(2)
                .thenCancel()
                .verify();

        assertThat(lw.list(0).labelSelector()).isEqualTo("app=web");
        assertThat(lw.list(0).fieldSelector()).isEqualTo("metadata.name=x");
        assertThat(lw.watch(0).labelSelector()).isEqualTo("app=web");
        assertThat(lw.watch(0).fieldSelector()).isEqualTo("metadata.name=x");
    }

    @Test
    void watchClosedNormallyIsReopenedAtOnceFromTheLastVersionWithoutRelisting() {
        lw.listReturns(page("10", null))
                .watchReturns(closing(Duration.ofMinutes(5), scheduler, added(cm("a", "11")), bookmark("12")))
                .watchReturns(open(modified(cm("a", "13"))));

        verify(reflector(lw, scheduler))
                .expectNextCount(3)
                .expectNoEvent(Duration.ofMinutes(5))
                .assertNext(e -> assertThat(e).isInstanceOf(Applied.class))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).hasSize(1);
        assertThat(lw.watchCalls()).hasSize(2);
        assertThat(lw.watch(1).resourceVersion()).isEqualTo("12");
        assertThat(lw.watchCalls().get(1).atMillis()).isEqualTo(Duration.ofMinutes(5).toMillis());
    }

    @Test
    void quietWatchThatLastedASecondIsNotSuspicious() {
        lw.listReturns(page("10", null))
                .watchReturns(closing(Duration.ofSeconds(1), scheduler));

        verify(reflector(lw, scheduler))
                .expectNextCount(1)
                .expectNoEvent(Duration.ofMinutes(1))
                .thenCancel()
                .verify();

        // no relist; the server ended the watch long before its timeout, so the quiet re-watch gets the
        // store-rollback probe (one limit=1 LIST, see ReflectorRollbackTest)
        assertThat(lw.listCalls()).extracting(call -> call.options().limit()).containsExactly(500, 1);
        assertThat(lw.watchCalls()).extracting(ScriptedListerWatcher.Call::atMillis).containsExactly(0L, 1_000L);
    }

    @Test
    void relistVersionIsZeroThenLastSyncedThenEmptyAfterTheServerLostItThenLastSyncedAgain() {
        lw.listReturns(page("10", null))
                .watchReturns(failing(gone(), added(cm("a", "11"))))
                .listFails(gone())
                .listReturns(page("30", null))
                .watchReturns(failing(gone()))
                .listReturns(page("40", null));

        verify(reflector(lw, scheduler))
                .expectNext(new Listed<>(List.of(), "10"))
                .expectNextCount(1)
                .assertNext(failed(KubernetesApiException.Gone.class, 1, Duration.ofMillis(800)))
                .expectNoEvent(Duration.ofMillis(800))
                .as("the list at the last synced version is too old: retried at once at \"\"")
                .assertNext(failed(KubernetesApiException.Gone.class, 2, Duration.ZERO))
                .expectNext(new Listed<>(List.of(), "30"))
                .as("an expired watch relists after the initial delay, however often it happened before")
                .assertNext(failed(KubernetesApiException.Gone.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(), "40"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).extracting(call -> call.options().resourceVersion())
                .containsExactly("0", "11", "", "30");
        assertThat(lw.listCalls()).extracting(call -> call.options().limit())
                .as("a specific version is listed unpaginated from the watch cache")
                .containsExactly(500, null, 500, null);
    }

    @Test
    void tooLargeResourceVersionCountsAsUnavailable() {
        lw.listReturns(page("10", null))
                .watchReturns(failing(gone(), bookmark("99")))
                .listFails(tooLargeResourceVersion())
                .listReturns(page("50", null));

        verify(reflector(lw, scheduler))
                .expectNextCount(2)
                .assertNext(failed(KubernetesApiException.Gone.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .assertNext(failed(KubernetesApiException.ServerError.class, 2, Duration.ZERO))
                .expectNext(new Listed<>(List.of(), "50"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).extracting(call -> call.options().resourceVersion()).containsExactly("0", "99", "");
    }

    @Test
    void listAtEmptyVersionThatFailsBacksOff() {
        lw.listReturns(page("10", null))
                .watchReturns(failing(gone(), bookmark("11")))
                .listFails(gone())
                .listFails(gone())
                .listReturns(page("20", null));

        verify(reflector(lw, scheduler))
                .expectNextCount(2)
                .assertNext(failed(KubernetesApiException.Gone.class, 1, Duration.ofMillis(800)))
                .thenAwait(Duration.ofMillis(800))
                .assertNext(failed(KubernetesApiException.Gone.class, 2, Duration.ZERO))
                .as("the failed list at \"\" is the server's failure: the backoff starts")
                .assertNext(failed(KubernetesApiException.Gone.class, 3, Duration.ofMillis(800)))
                .expectNoEvent(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(), "20"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).extracting(call -> call.options().resourceVersion())
                .containsExactly("0", "11", "", "");
    }

    @Test
    void eachSubscriptionRunsItsOwnListAndWatch() {
        lw.listReturns(page("10", null)).listReturns(page("20", null));
        Reflector<V1ConfigMap> reflector = reflector(lw, scheduler);

        StepVerifier.create(reflector.events()).expectNext(new Listed<>(List.of(), "10")).thenCancel().verify();
        StepVerifier.create(reflector.events()).expectNext(new Listed<>(List.of(), "20")).thenCancel().verify();

        assertThat(lw.listCalls()).extracting(call -> call.options().resourceVersion()).containsExactly("0", "0");
    }
}
