package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.LISTING;
import static io.reactiveinformer.watch.Fixtures.added;
import static io.reactiveinformer.watch.Fixtures.bookmark;
import static io.reactiveinformer.watch.Fixtures.cm;
import static io.reactiveinformer.watch.Fixtures.deleted;
import static io.reactiveinformer.watch.Fixtures.initialEventsEnd;
import static io.reactiveinformer.watch.Fixtures.modified;
import static io.reactiveinformer.watch.Fixtures.open;
import static io.reactiveinformer.watch.Fixtures.reflector;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.watch.ReflectorEvent.Applied;
import io.reactiveinformer.watch.ReflectorEvent.Bookmark;
import io.reactiveinformer.watch.ReflectorEvent.Deleted;
import io.reactiveinformer.watch.ReflectorEvent.Listed;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A reflector with a shard selector sends it, and delivers exactly the shard whether the server applies it
 * (the list echoes it in {@code shardInfo}) or ignores it (no echo: it filters the objects itself).
 */
@Timeout(30)
class ReflectorShardTest {

    /** The lower half of the uid hash space. */
    private static final ShardSelector LOWER_HALF = ShardSelector.shard(ShardSelector.Key.UID, 0, 2);

    private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
    private final ScriptedListerWatcher<V1ConfigMap> lw = new ScriptedListerWatcher<>(scheduler);
    // uids found by hashing (ShardSelector.hash agrees with Go's, see ShardSelectorTest)
    private final V1ConfigMap in = withUid(cm("in", "5"), true);
    private final V1ConfigMap out = withUid(cm("out", "6"), false);

    private StepVerifier.FirstStep<ReflectorEvent<V1ConfigMap>> verify(ReflectorOptions options) {
        return StepVerifier.withVirtualTime(() -> reflector(lw, scheduler, 0.0, options.withShardSelector(LOWER_HALF))
                .events(), () -> scheduler, Long.MAX_VALUE);
    }

    @Test
    void withTheEchoTheServerIsTrustedAndNothingIsFilteredHere() {
        // A server that echoes the selector would not send "out"; it does here to show the reflector keeps it.
        lw.listReturns(new ObjectList<>(List.of(in, out), "10", null, null, LOWER_HALF.toString()))
                .watchReturns(open(added(withUid(cm("late", "11"), false))));

        verify(LISTING)
                .expectNext(new Listed<>(List.of(in, out), "10", false))
                .assertNext(e -> assertThat(e).isInstanceOf(Applied.class))
                .thenCancel()
                .verify();

        assertThat(lw.list(0).shardSelector()).isEqualTo(LOWER_HALF);
        assertThat(lw.watch(0).shardSelector()).isEqualTo(LOWER_HALF);
    }

    @Test
    void withoutTheEchoTheListAndEveryWatchEventAreFilteredHere() {
        V1ConfigMap inLater = withUid(cm("in-later", "12"), true);
        lw.listReturns(new ObjectList<>(List.of(in, out), "10", null, null, null))
                .watchReturns(open(added(withUid(cm("out-2", "11"), false)), added(inLater),
                        modified(withUid(cm("out", "13"), false)), deleted(withUid(cm("out", "14"), false)),
                        modified(withUid(cm("in", "15"), true)), bookmark("16")));

        verify(LISTING)
                .expectNext(new Listed<>(List.of(in), "10", true))
                .expectNext(new Applied<>(WatchEvent.Type.ADDED, inLater))
                .assertNext(e -> assertThat(e).isInstanceOfSatisfying(Applied.class,
                        a -> assertThat(a.object().getMetadata().getResourceVersion()).isEqualTo("15")))
                .expectNext(new Bookmark<>("16"))
                .thenCancel()
                .verify();
    }

    @Test
    void anEchoOfAnotherSelectorIsNoEchoOfOurs() {
        ShardSelector other = ShardSelector.shard(ShardSelector.Key.UID, 0, 4);
        lw.listReturns(new ObjectList<>(List.of(in, out), "10", null, null, other.toString()))
                .watchReturns(open());

        verify(LISTING)
                .expectNext(new Listed<>(List.of(in), "10", true))
                .thenCancel()
                .verify();
    }

    @Test
    void aPagedListIsFilteredServerSideOnlyIfEveryPageEchoesTheSelector() {
        V1ConfigMap inToo = withUid(cm("in-too", "7"), true);
        lw.listReturns(new ObjectList<>(List.of(in, out), "10", "more", null, LOWER_HALF.toString()))
                .listReturns(new ObjectList<>(List.of(inToo), "10", null, null, null))
                .watchReturns(open());

        verify(LISTING.withPageSize(2))
                .expectNext(new Listed<>(List.of(in, inToo), "10", true))
                .thenCancel()
                .verify();

        assertThat(lw.list(1).shardSelector()).as("the continuation carries it too").isEqualTo(LOWER_HALF);
    }

    @Test
    void aStreamingListThatDeliversAnObjectOutsideTheShardIsFilteredHere() {
        V1ConfigMap outLater = withUid(cm("out-later", "9"), false);
        lw.watchReturns(open(added(in), added(out), initialEventsEnd("7"), added(outLater), deleted(in)));

        verify(ReflectorOptions.defaults())
                .expectNext(new Listed<>(List.of(in), "7", true))
                .expectNext(new Deleted<>(in))
                .thenCancel()
                .verify();

        assertThat(lw.watch(0).shardSelector()).isEqualTo(LOWER_HALF);
    }

    @Test
    void aStreamingListOfTheShardOnlyIsNotReportedAsFilteredLocally() {
        lw.watchReturns(open(added(in), initialEventsEnd("7")));

        verify(ReflectorOptions.defaults())
                .expectNext(new Listed<>(List.of(in), "7", false))
                .thenCancel()
                .verify();
    }

    @Test
    void withoutAShardSelectorNothingIsFiltered() {
        lw.listReturns(new ObjectList<>(List.of(in, out), "10", null, null, null)).watchReturns(open());

        StepVerifier.withVirtualTime(() -> reflector(lw, scheduler).events(), () -> scheduler, Long.MAX_VALUE)
                .expectNext(new Listed<>(List.of(in, out), "10", false))
                .thenCancel()
                .verify();
        assertThat(lw.list(0).shardSelector()).isNull();
    }

    @Test
    void aNewSelectionEndsTheWatchAndRelistsWithIt() {
        ShardSelector upperHalf = ShardSelector.shard(ShardSelector.Key.UID, 1, 2);
        ShardSelection selection = ShardSelection.of(LOWER_HALF);
        lw.listReturns(new ObjectList<>(List.of(in), "10", null, null, LOWER_HALF.toString()))
                .watchReturns(open(added(withUid(cm("in-2", "11"), true))))
                .listReturns(new ObjectList<>(List.of(out), "12", null, null, upperHalf.toString()))
                .watchReturns(open());

        StepVerifier.withVirtualTime(() -> Reflector.builder(lw).options(LISTING)
                        .shardSelection(selection).scheduler(scheduler).build().events(), () -> scheduler, Long.MAX_VALUE)
                .expectNext(new Listed<>(List.of(in), "10", false, 1))
                .assertNext(e -> assertThat(e).isInstanceOf(Applied.class))
                .then(() -> assertThat(selection.select(upperHalf)).isEqualTo(2))
                .thenAwait()
                .expectNext(new Listed<>(List.of(out), "12", false, 2))
                .then(() -> assertThat(lw.cancelledWatches()).as("the first watch was ended").isEqualTo(1))
                .expectNoEvent(java.time.Duration.ofSeconds(1))
                .then(() -> assertThat(lw.watchCalls()).hasSize(2))
                .thenCancel()
                .verify();

        assertThat(lw.list(1).shardSelector()).isEqualTo(upperHalf);
        assertThat(lw.list(1).resourceVersion()).as("relisted from where it was").isEqualTo("11");
        assertThat(lw.watch(1).shardSelector()).isEqualTo(upperHalf);
        assertThat(selection.select(upperHalf)).as("the same selector again is the same selection").isEqualTo(2);
    }

    @Test
    void noShardListsNothingUntilOneIsSelected() {
        ShardSelection selection = ShardSelection.of(ShardSelector.none());
        lw.listReturns(new ObjectList<>(List.of(in), "10", null, null, LOWER_HALF.toString())).watchReturns(open());

        StepVerifier.withVirtualTime(() -> Reflector.builder(lw).options(LISTING).shardSelection(selection).scheduler(scheduler)
                        .build()
                        .events(), () -> scheduler, Long.MAX_VALUE)
                .expectNext(new Listed<>(List.of(), "", false, 1))
                .thenAwait(java.time.Duration.ofHours(1))
                .then(() -> assertThat(lw.listCalls()).isEmpty())
                .then(() -> selection.select(LOWER_HALF))
                .thenAwait()
                .expectNext(new Listed<>(List.of(in), "10", false, 2))
                .then(() -> selection.select(ShardSelector.none()))
                .thenAwait()
                .expectNext(new Listed<>(List.of(), "10", false, 3))
                .thenCancel()
                .verify();

        assertThat(lw.list(0).shardSelector()).isEqualTo(LOWER_HALF);
    }

    /** {@code object} with the first uid {@code uid-<n>} that falls inside (or outside) {@link #LOWER_HALF}. */
    private static V1ConfigMap withUid(V1ConfigMap object, boolean inside) {
        for (int n = 0; ; n++) {
            object.getMetadata().uid("uid-" + n);
            if (LOWER_HALF.matches(object) == inside) {
                return object;
            }
        }
    }
}
