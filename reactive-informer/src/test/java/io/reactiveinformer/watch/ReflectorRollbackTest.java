package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.LISTING;
import static io.reactiveinformer.watch.Fixtures.added;
import static io.reactiveinformer.watch.Fixtures.bookmark;
import static io.reactiveinformer.watch.Fixtures.closing;
import static io.reactiveinformer.watch.Fixtures.cm;
import static io.reactiveinformer.watch.Fixtures.connectionRefused;
import static io.reactiveinformer.watch.Fixtures.failed;
import static io.reactiveinformer.watch.Fixtures.failing;
import static io.reactiveinformer.watch.Fixtures.open;
import static io.reactiveinformer.watch.Fixtures.page;
import static io.reactiveinformer.watch.Fixtures.reflector;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.watch.ReflectorEvent.Listed;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The store went back in time (etcd restored from a backup): a quiet re-watch after a lost connection is
 * probed with one {@code limit=1} LIST, and a store older than what was synced leads to a relist.
 */
@Timeout(30)
class ReflectorRollbackTest {

    private static final Duration BACKOFF = Duration.ofMillis(800);
    private static final Duration PROBE_DELAY = Duration.ofSeconds(10);

    private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
    private final ScriptedListerWatcher<V1ConfigMap> lw = new ScriptedListerWatcher<>(scheduler);

    private StepVerifier.FirstStep<ReflectorEvent<V1ConfigMap>> verify() {
        return StepVerifier.withVirtualTime(() -> reflector(lw, scheduler).events(), () -> scheduler, Long.MAX_VALUE);
    }

    @Test
    void aQuietRewatchAfterAFailureFindsTheStoreOlderAndRelistsFromIt() {
        lw.listReturns(page("100", null, cm("old", "90")))
                .watchReturns(failing(connectionRefused(), added(cm("a", "140"))))
                .watchReturns(Flux.never())                 // a watch from a version in the store's future
                .listReturns(page("120", null))             // the probe: the store is at 120 < 140
                .listReturns(page("125", null, cm("new", "121")));

        verify().expectNextCount(2)
                .assertNext(failed(TransportException.class, 1, BACKOFF))
                .expectNoEvent(BACKOFF.plus(PROBE_DELAY).minusMillis(1))
                .then(() -> assertThat(lw.listCalls()).hasSize(1))
                .thenAwait(Duration.ofMillis(1))
                .assertNext(failed(ReflectorException.Reason.STORE_ROLLED_BACK, 2, Duration.ZERO))
                .expectNext(new Listed<>(List.of(cm("new", "121")), "125"))
                .thenCancel()
                .verify();

        assertThat(lw.list(1)).isEqualTo(new ListOptions(null, null, 1, null, "", null));
        assertThat(lw.list(2).resourceVersion()).as("relisted from the store as it is, not at 140").isEmpty();
        assertThat(lw.cancelledWatches()).isEqualTo(1);
        assertThat(lw.watch(1).resourceVersion()).isEqualTo("140");
    }

    @Test
    void aStoreAtOrPastTheSyncedVersionLeavesTheWatchAlone() {
        lw.listReturns(page("100", null))
                .watchFails(connectionRefused())
                .watchReturns(Flux.never())
                .listReturns(page("100", null));

        verify().expectNextCount(1)
                .assertNext(failed(TransportException.class, 1, BACKOFF))
                .expectNoEvent(BACKOFF.plus(PROBE_DELAY).plus(Duration.ofMinutes(1)))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).hasSize(2);
        assertThat(lw.watchCalls()).hasSize(2);
        assertThat(lw.cancelledWatches()).isEqualTo(1);
    }

    @Test
    void anEventBeforeTheProbeDelaySettlesItWithoutARequest() {
        lw.listReturns(page("100", null))
                .watchFails(connectionRefused())
                .watchReturns(open(bookmark("101")));

        verify().expectNextCount(1)
                .assertNext(failed(TransportException.class, 1, BACKOFF))
                .thenAwait(BACKOFF)
                .expectNext(new ReflectorEvent.Bookmark<>("101"))
                .expectNoEvent(PROBE_DELAY.multipliedBy(10))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).hasSize(1);
    }

    @Test
    void aWatchTheServerEndsEarlyAlsoLeadsToAProbe() {
        lw.listReturns(page("100", null))
                .watchReturns(closing(Duration.ofSeconds(30), scheduler, added(cm("a", "140"))))
                .watchReturns(Flux.never())
                .listReturns(page("7", null))
                .listReturns(page("8", null));

        verify().expectNextCount(2)
                .thenAwait(Duration.ofSeconds(30).plus(PROBE_DELAY))
                .assertNext(failed(ReflectorException.Reason.STORE_ROLLED_BACK, 1, Duration.ZERO))
                .expectNext(new Listed<>(List.of(), "8"))
                .thenCancel()
                .verify();
    }

    @Test
    void aWatchEndingAtItsTimeoutIsNotProbed() {
        lw.listReturns(page("100", null))
                .watchReturns(closing(Duration.ofMinutes(5), scheduler, added(cm("a", "140"))))
                .watchReturns(Flux.never());

        verify().expectNextCount(2)
                .thenAwait(Duration.ofMinutes(5).plus(PROBE_DELAY.multipliedBy(10)))
                .expectNoEvent(Duration.ofMinutes(1))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).hasSize(1);
        assertThat(lw.watchCalls()).hasSize(2);
    }

    @Test
    void noProbeWhenDisabled() {
        lw.listReturns(page("100", null))
                .watchFails(connectionRefused())
                .watchReturns(Flux.never())
                .listReturns(page("1", null));

        StepVerifier.withVirtualTime(() -> reflector(lw, scheduler, 0.0,
                                LISTING.withRollbackProbeDelay(null)).events(),
                        () -> scheduler, Long.MAX_VALUE)
                .expectNextCount(2)
                .expectNoEvent(Duration.ofMinutes(5))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).hasSize(1);
    }
}
