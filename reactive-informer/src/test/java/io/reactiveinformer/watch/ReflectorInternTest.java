package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.added;
import static io.reactiveinformer.watch.Fixtures.cm;
import static io.reactiveinformer.watch.Fixtures.failed;
import static io.reactiveinformer.watch.Fixtures.failing;
import static io.reactiveinformer.watch.Fixtures.gone;
import static io.reactiveinformer.watch.Fixtures.initialEventsEnd;
import static io.reactiveinformer.watch.Fixtures.modified;
import static io.reactiveinformer.watch.Fixtures.open;
import static io.reactiveinformer.watch.Fixtures.page;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.watch.ReflectorEvent.Applied;
import io.reactiveinformer.watch.ReflectorEvent.Failed;
import io.reactiveinformer.watch.ReflectorEvent.Listed;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The interner sees every listed object, of every page or initial event, and none of a watch; and no list made
 * after the server's store went back in time, when a resourceVersion may name two states.
 */
@Timeout(30)
class ReflectorInternTest {

    private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
    private final ScriptedListerWatcher<V1ConfigMap> lw = new ScriptedListerWatcher<>(scheduler);
    /** What the consumer holds: "a" at resourceVersion 5. */
    private final V1ConfigMap held = cm("a", "5");
    private final List<String> interned = new CopyOnWriteArrayList<>();
    private final UnaryOperator<V1ConfigMap> interner = listed -> {
        interned.add(listed.getMetadata().getName());
        return Map.of("a", held).getOrDefault(listed.getMetadata().getName(), listed);
    };

    private StepVerifier.FirstStep<ReflectorEvent<V1ConfigMap>> verify(boolean streaming) {
        Reflector<V1ConfigMap> reflector = Reflector.builder(lw).options(ReflectorOptions.defaults()
                .withStreamingList(streaming)).scheduler(scheduler).random(() -> 0.0).interner(interner).build();
        return StepVerifier.withVirtualTime(reflector::events, () -> scheduler, Long.MAX_VALUE);
    }

    @Test
    void everyPageOfAListIsInterned() {
        V1ConfigMap b = cm("b", "6");
        V1ConfigMap c = cm("c", "7");
        lw.listReturns(page("10", "more", cm("a", "5"), b))
                .listReturns(page("10", null, c))
                .watchReturns(open(modified(cm("a", "11"))));

        verify(false)
                .assertNext(e -> assertThat(((Listed<V1ConfigMap>) e).items()).satisfiesExactly(
                        a -> assertThat(a).isSameAs(held), x -> assertThat(x).isSameAs(b), x -> assertThat(x).isSameAs(c)))
                .assertNext(e -> assertThat(((Applied<V1ConfigMap>) e).object()).isNotSameAs(held))
                .thenCancel()
                .verify();

        assertThat(interned).containsExactly("a", "b", "c");
    }

    @Test
    void theInitialEventsOfAStreamingListAreInternedAndTheWatchThatFollowsIsNot() {
        V1ConfigMap b = cm("b", "6");
        lw.watchReturns(open(added(cm("a", "5")), added(b), initialEventsEnd("7"), added(cm("d", "8"))));

        verify(true)
                .assertNext(e -> assertThat(((Listed<V1ConfigMap>) e).items()).satisfiesExactly(
                        a -> assertThat(a).isSameAs(held), x -> assertThat(x).isSameAs(b)))
                .expectNext(new Applied<>(WatchEvent.Type.ADDED, cm("d", "8")))
                .thenCancel()
                .verify();

        assertThat(interned).containsExactly("a", "b");
    }

    /*
     * etcd restored from a backup at revision 4: the consumer holds "a" at 5 from the old timeline, and the new
     * timeline wrote another "a" at 5. The reflector synced up to 20 before; the 410'd watch's relist comes back
     * at 12, older: the list that swapped the new "a" for the held one is discarded, and the next is not interned.
     */
    private final V1ConfigMap otherTimeline = cm("a", "5").data(Map.of("timeline", "new"));

    @Test
    void aListOlderThanWhatWasSyncedIsMadeAgainWithoutInterning() {
        lw.listReturns(page("10", null, cm("a", "5")))
                .watchReturns(failing(gone(), modified(cm("b", "20"))))
                .listReturns(page("12", null, otherTimeline))
                .listReturns(page("12", null, otherTimeline))
                .watchReturns(open());

        verify(false)
                .assertNext(e -> assertThat(((Listed<V1ConfigMap>) e).items()).singleElement().isSameAs(held))
                .assertNext(e -> assertThat(e).isInstanceOf(Applied.class))
                .assertNext(e -> assertThat(e).isInstanceOf(Failed.class))
                .thenAwait(Duration.ofMinutes(1))
                .assertNext(failed(ReflectorException.Reason.STORE_ROLLED_BACK, 2, Duration.ZERO))
                .assertNext(e -> assertThat(((Listed<V1ConfigMap>) e).items()).singleElement().isSameAs(otherTimeline))
                .thenCancel()
                .verify();

        assertThat(interned).as("the first list and the discarded one").containsExactly("a", "a");
        assertThat(lw.list(2).resourceVersion()).as("the list made again is consistent").isEmpty();
    }

    @Test
    void aStreamingListOlderThanWhatWasSyncedIsMadeAgainWithoutInterning() {
        lw.watchReturns(failing(gone(), added(cm("a", "5")), initialEventsEnd("10"), modified(cm("b", "20"))))
                .watchReturns(open(added(otherTimeline), initialEventsEnd("12")))
                .watchReturns(open(added(otherTimeline), initialEventsEnd("12")));

        verify(true)
                .assertNext(e -> assertThat(((Listed<V1ConfigMap>) e).items()).singleElement().isSameAs(held))
                .assertNext(e -> assertThat(e).isInstanceOf(Applied.class))
                .assertNext(e -> assertThat(e).isInstanceOf(Failed.class))
                .thenAwait(Duration.ofMinutes(1))
                .assertNext(failed(ReflectorException.Reason.STORE_ROLLED_BACK, 2, Duration.ZERO))
                .assertNext(e -> assertThat(((Listed<V1ConfigMap>) e).items()).singleElement().isSameAs(otherTimeline))
                .thenCancel()
                .verify();

        assertThat(interned).as("the first streaming list and the discarded one").containsExactly("a", "a");
    }
}
