package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.LISTING;
import static io.reactiveinformer.watch.Fixtures.bookmark;
import static io.reactiveinformer.watch.Fixtures.cm;
import static io.reactiveinformer.watch.Fixtures.failed;
import static io.reactiveinformer.watch.Fixtures.failing;
import static io.reactiveinformer.watch.Fixtures.gone;
import static io.reactiveinformer.watch.Fixtures.page;
import static io.reactiveinformer.watch.Fixtures.reflector;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.watch.ReflectorEvent.Listed;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Gathering pages, the page size policy, and expired continue tokens. */
@Timeout(30)
class ReflectorPagingTest {

    private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
    private final ScriptedListerWatcher<V1ConfigMap> lw = new ScriptedListerWatcher<>(scheduler);
    private final V1ConfigMap a = cm("a", "3");
    private final V1ConfigMap b = cm("b", "4");
    private final V1ConfigMap c = cm("c", "5");

    private StepVerifier.FirstStep<ReflectorEvent<V1ConfigMap>> verify(ReflectorOptions options) {
        return StepVerifier.withVirtualTime(() -> reflector(lw, scheduler, 0.0, options).events(), () -> scheduler,
                Long.MAX_VALUE);
    }

    @Test
    void gathersEveryPageIntoOneListedAtTheFirstPagesVersion() {
        lw.listReturns(page("10", "c1", a)).listReturns(page("10", "c2", b)).listReturns(page("10", "", c));

        verify(LISTING)
                .expectNext(new Listed<>(List.of(a, b, c), "10"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).extracting(ScriptedListerWatcher.Call::options).containsExactly(
                new ListOptions(null, null, 500, null, "0", null),
                new ListOptions(null, null, 500, "c1", null, null),
                new ListOptions(null, null, 500, "c2", null, null));
    }

    @Test
    void aListServedWholeReachesTheListedEventWithoutACopyOfItsItems() {
        ObjectList<V1ConfigMap> whole = page("10", null, a, b, c);
        lw.listReturns(whole);

        verify(LISTING)
                .assertNext(event -> assertThat(((Listed<V1ConfigMap>) event).items())
                        .as("the page's own items: one N-sized list, not a copy per stage").isSameAs(whole.items()))
                .thenCancel()
                .verify();
    }

    @Test
    void relistAtASpecificVersionIsUnpaginatedWhenTheFirstListWasServedWhole() {
        lw.listReturns(page("10", null, a))
                .watchReturns(failing(gone(), bookmark("11")))
                .listReturns(page("12", null, a));

        verify(LISTING)
                .expectNextCount(3)
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(a), "12"))
                .thenCancel()
                .verify();

        assertThat(lw.list(1)).isEqualTo(new ListOptions(null, null, null, null, "11", null));
    }

    @Test
    void relistStaysPaginatedWhenTheListAtZeroCameBackInPages() {
        lw.listReturns(page("10", "c1", a)).listReturns(page("10", null, b))
                .watchReturns(failing(gone(), bookmark("11")))
                .listReturns(page("12", null, a));

        verify(LISTING)
                .expectNext(new Listed<>(List.of(a, b), "10"))
                .expectNextCount(2)
                .thenAwait(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(a), "12"))
                .thenCancel()
                .verify();

        assertThat(lw.list(2)).isEqualTo(new ListOptions(null, null, 500, null, "11", null));
    }

    @Test
    void explicitPageSizeIsAlwaysUsedAndZeroNeverPaginates() {
        lw.listReturns(page("10", null, a))
                .watchReturns(failing(gone(), bookmark("11")))
                .listReturns(page("12", null, a));

        verify(LISTING.withPageSize(100))
                .expectNextCount(3)
                .thenAwait(Duration.ofMillis(800))
                .expectNextCount(1)
                .thenCancel()
                .verify();
        assertThat(lw.listCalls()).extracting(call -> call.options().limit()).containsExactly(100, 100);

        ScriptedListerWatcher<V1ConfigMap> unpaged = new ScriptedListerWatcher<>(scheduler);
        unpaged.listReturns(page("10", null, a));
        StepVerifier.withVirtualTime(() -> reflector(unpaged, scheduler, 0.0,
                        LISTING.withPageSize(0)).events(), () -> scheduler, Long.MAX_VALUE)
                .expectNextCount(1)
                .thenCancel()
                .verify();
        assertThat(unpaged.list(0).limit()).isNull();
    }

    @Test
    void expiredContinueTokenListsOnceUnpaginatedAtTheOriginalVersion() {
        lw.listReturns(page("10", "c1", a))
                .listFails(gone())
                .listReturns(page("13", null, a, b, c));

        verify(LISTING)
                .expectNext(new Listed<>(List.of(a, b, c), "13"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).extracting(ScriptedListerWatcher.Call::options).containsExactly(
                new ListOptions(null, null, 500, null, "0", null),
                new ListOptions(null, null, 500, "c1", null, null),
                new ListOptions(null, null, null, null, "0", null));
        assertThat(lw.listCalls()).extracting(ScriptedListerWatcher.Call::atMillis).containsOnly(0L);
    }

    @Test
    void whenTheUnpaginatedListExpiresTooItListsAtEmptyVersion() {
        lw.listReturns(page("10", null))
                .watchReturns(failing(gone(), bookmark("20")))
                .listReturns(page("20", "c1", a))
                .listFails(gone())
                .listFails(gone())
                .listReturns(page("30", null, a, b));

        verify(LISTING.withPageSize(1))
                .expectNextCount(3)
                .thenAwait(Duration.ofMillis(800))
                .assertNext(failed(KubernetesApiException.Gone.class, 2, Duration.ZERO))
                .expectNext(new Listed<>(List.of(a, b), "30"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).extracting(ScriptedListerWatcher.Call::options).containsExactly(
                new ListOptions(null, null, 1, null, "0", null),
                new ListOptions(null, null, 1, null, "20", null),
                new ListOptions(null, null, 1, "c1", null, null),
                new ListOptions(null, null, null, null, "20", null),
                new ListOptions(null, null, 1, null, "", null));
    }

    @Test
    void otherErrorOnALaterPageFailsTheWholeListAndRelistsFromTheStart() {
        lw.listReturns(page("10", "c1", a))
                .listFails(Fixtures.connectionRefused())
                .listReturns(page("11", null, a, b));

        verify(LISTING)
                .assertNext(failed(io.reactiveinformer.api.TransportException.class, 1, Duration.ofMillis(800)))
                .expectNoEvent(Duration.ofMillis(800))
                .expectNext(new Listed<>(List.of(a, b), "11"))
                .thenCancel()
                .verify();

        assertThat(lw.list(2)).isEqualTo(new ListOptions(null, null, 500, null, "0", null));
    }
}
