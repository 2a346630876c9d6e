package io.reactiveinformer.informer;

import io.reactiveinformer.cache.ConcurrentIndexer;
import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.test.scheduler.VirtualTimeScheduler;

class DeltaFifoTest {

    private final ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
    private final SteppedFifo<V1Pod> consumer = new SteppedFifo<>(cache);
    private final DeltaFifo<V1Pod> fifo = consumer.fifo;

    /** {@code ns/a[ADDED:1,UPDATED:2]} or {@code replace@10[ns/a:1]*} ({@code *}: initial). */
    static String describe(FifoEntry<V1Pod> entry) {
        if (entry instanceof FifoEntry.Deltas<V1Pod> deltas) {
            return deltas.key() + deltas.deltas().stream()
                    .map(d -> d.type() + ":" + d.object().getMetadata().getResourceVersion())
                    .collect(Collectors.joining(",", "[", "]"));
        }
        FifoEntry.Replace<V1Pod> replace = (FifoEntry.Replace<V1Pod>) entry;
        return "replace@" + replace.resourceVersion() + replace.items().entrySet().stream()
                .map(e -> e.getKey() + ":" + e.getValue().getMetadata().getResourceVersion())
                .collect(Collectors.joining(",", "[", "]")) + (replace.initial() ? "*" : "");
    }

    /** Everything delivered so far, once the drain loop has run. */
    private List<String> drain() {
        return consumer.drain().stream().map(DeltaFifoTest::describe).toList();
    }

    @Test
    void keysPopInFirstPendingOrderWithTheirDeltasCoalesced() {
        fifo.add(pod("ns", "a", "1"));
        fifo.add(pod("ns", "b", "1"));
        fifo.update(pod("ns", "a", "2"));
        fifo.update(pod("ns", "a", "3"));
        fifo.add(pod("ns", "c", "1"));
        fifo.update(pod("ns", "b", "2"));

        assertThat(drain()).containsExactly("ns/a[ADDED:1,UPDATED:3]", "ns/b[ADDED:1,UPDATED:2]", "ns/c[ADDED:1]");
    }

    @Test
    void pushesWaitForTheDrainLoopAndCoalesceMeanwhile() {
        fifo.add(pod("ns", "a", "1"));
        fifo.add(pod("ns", "b", "1"));
        fifo.add(pod("ns", "c", "1"));
        assertThat(consumer.entries).isEmpty();

        assertThat(drain()).containsExactly("ns/a[ADDED:1]", "ns/b[ADDED:1]", "ns/c[ADDED:1]");

        fifo.update(pod("ns", "b", "2"));
        fifo.update(pod("ns", "b", "3"));
        fifo.add(pod("ns", "a", "2"));
        assertThat(consumer.entries).hasSize(3);
        assertThat(drain()).containsExactly("ns/a[ADDED:1]", "ns/b[ADDED:1]", "ns/c[ADDED:1]",
                "ns/b[UPDATED:3]", "ns/a[ADDED:2]");
        assertThat(consumer.failures).isEmpty();
    }

    @Test
    void whatIsPushedWhileAnEntryIsAppliedCoalescesWithWhatIsStillPending() {
        SteppedFifo<V1Pod> pushing = new SteppedFifo<>(cache, UnaryOperator.identity(), (producer, entry) -> {
            if (entry instanceof FifoEntry.Deltas<V1Pod> d && d.key().equals("ns/a") && d.deltas().size() == 1
                    && d.newest().object().getMetadata().getResourceVersion().equals("1")) {
                producer.update(pod("ns", "b", "2"));
                producer.add(pod("ns", "a", "2"));
            }
        });
        pushing.fifo.add(pod("ns", "a", "1"));
        pushing.fifo.add(pod("ns", "b", "1"));

        assertThat(pushing.drain()).extracting(DeltaFifoTest::describe)
                .containsExactly("ns/a[ADDED:1]", "ns/b[ADDED:1,UPDATED:2]", "ns/a[ADDED:2]");
    }

    @Test
    void deletionOfAKeyUnknownToQueueAndCacheIsIgnored() {
        fifo.delete(pod("ns", "ghost", "1"));
        assertThat(drain()).isEmpty();
    }

    @Test
    void deletionOfACachedKeyIsQueued() {
        cache.put(pod("ns", "a", "1"));
        fifo.delete(pod("ns", "a", "2"));
        assertThat(drain()).containsExactly("ns/a[DELETED:2]");
    }

    @Test
    void deletionOfAPendingKeyIsQueuedAndTrailingDeletionsCollapse() {
        fifo.add(pod("ns", "a", "1"));
        fifo.delete(pod("ns", "a", "2"));
        fifo.delete(pod("ns", "a", "3"));
        assertThat(drain()).containsExactly("ns/a[ADDED:1,DELETED:3]");
    }

    @Test
    void replaceSupersedesEverythingPending() {
        cache.put(pod("ns", "b", "1"));
        fifo.add(pod("ns", "a", "1"));
        fifo.update(pod("ns", "b", "2"));
        fifo.replace(List.of(pod("ns", "c", "5"), pod("ns", "b", "5")), "10", 1);
        fifo.update(pod("ns", "c", "6"));
        fifo.update(pod("ns", "c", "7"));

        // not initial: a FIFO whose first change was not a relist counts as synced from then on
        assertThat(drain()).containsExactly("replace@10[ns/c:5,ns/b:5]", "ns/c[UPDATED:7]");
    }

    @Test
    void secondReplaceSupersedesTheFirstAndWhatFollowedIt() {
        fifo.replace(List.of(pod("ns", "a", "1")), "10", 1);
        fifo.add(pod("ns", "b", "2"));
        fifo.replace(List.of(pod("ns", "c", "3")), "20", 1);
        fifo.update(pod("ns", "c", "4"));

        assertThat(drain()).containsExactly("replace@20[ns/c:3]*", "ns/c[UPDATED:4]");
    }

    @Test
    void behindAPendingReplaceDeletionsAreJudgedAgainstTheListedKeys() {
        cache.put(pod("ns", "cached-not-listed", "1"));
        fifo.replace(List.of(pod("ns", "listed", "1")), "10", 1);
        fifo.delete(pod("ns", "listed", "2"));
        fifo.delete(pod("ns", "cached-not-listed", "2"));

        assertThat(drain()).containsExactly("replace@10[ns/listed:1]*", "ns/listed[DELETED:2]");
    }

    @Test
    void duplicateKeysInAListKeepTheLastObject() {
        fifo.replace(List.of(pod("ns", "a", "1"), pod("ns", "b", "1"), pod("ns", "a", "2")), "10", 1);
        assertThat(drain()).containsExactly("replace@10[ns/a:2,ns/b:1]*");
    }

    @Test
    void resyncQueuesSyncOnlyForCachedKeysWithNothingPending() {
        cache.put(pod("ns", "a", "1"));
        cache.put(pod("ns", "b", "1"));
        cache.put(pod("ns", "c", "1"));
        fifo.update(pod("ns", "b", "2"));
        fifo.resync();
        fifo.resync();

        List<String> entries = drain();
        assertThat(entries).first().isEqualTo("ns/b[UPDATED:2]");
        assertThat(entries).containsExactlyInAnyOrder("ns/b[UPDATED:2]", "ns/a[SYNC:1]", "ns/c[SYNC:1]");
    }

    @Test
    void resyncDoesNothingWhileAReplaceIsPending() {
        cache.put(pod("ns", "a", "1"));
        fifo.replace(List.of(pod("ns", "b", "1")), "10", 1);
        fifo.resync();
        assertThat(drain()).containsExactly("replace@10[ns/b:1]*");
    }

    @Test
    void transformRunsOncePerPushedObject() {
        AtomicInteger calls = new AtomicInteger();
        SteppedFifo<V1Pod> transformingFifo = new SteppedFifo<>(cache, pod -> {
            calls.incrementAndGet();
            pod.getMetadata().setManagedFields(null);
            return pod;
        }, (producer, entry) -> { });
        DeltaFifo<V1Pod> transforming = transformingFifo.fifo;
        cache.put(pod("ns", "cached", "1"));
        transforming.add(withManagedFields(pod("ns", "a", "1")));
        transforming.update(withManagedFields(pod("ns", "a", "2")));
        transforming.replace(List.of(withManagedFields(pod("ns", "b", "1")), withManagedFields(pod("ns", "c", "1"))), "5", 1);
        transforming.delete(withManagedFields(pod("ns", "b", "2")));
        transforming.resync();

        List<FifoEntry<V1Pod>> entries = transformingFifo.drain();
        assertThat(calls).hasValue(5);
        assertThat(entries).hasSize(2);
        FifoEntry.Replace<V1Pod> replace = (FifoEntry.Replace<V1Pod>) entries.get(0);
        assertThat(replace.items().values()).allSatisfy(p -> assertThat(p.getMetadata().getManagedFields()).isNull());
        FifoEntry.Deltas<V1Pod> deleted = (FifoEntry.Deltas<V1Pod>) entries.get(1);
        assertThat(deleted.newest().object().getMetadata().getManagedFields()).isNull();
    }

    private static V1Pod withManagedFields(V1Pod pod) {
        pod.getMetadata().addManagedFieldsItem(new V1ManagedFieldsEntry().manager("kubectl"));
        return pod;
    }

    @Test
    void theFirstRelistDeliveredIsTheInitialOne() {
        fifo.replace(List.of(pod("ns", "a", "1")), "10", 1);
        fifo.replace(List.of(pod("ns", "b", "1")), "11", 1);
        fifo.add(pod("ns", "c", "1"));
        assertThat(drain()).containsExactly("replace@11[ns/b:1]*", "ns/c[ADDED:1]");

        fifo.replace(List.of(), "12", 1);
        assertThat(drain()).containsExactly("replace@11[ns/b:1]*", "ns/c[ADDED:1]", "replace@12[]");
    }

    @Test
    void aFirstChangeThatIsNotARelistMeansNoRelistIsInitial() {
        fifo.add(pod("ns", "a", "1"));
        assertThat(drain()).containsExactly("ns/a[ADDED:1]");
        fifo.replace(List.of(), "5", 1);
        assertThat(drain()).containsExactly("ns/a[ADDED:1]", "replace@5[]");
    }

    @Test
    void aConsumerThatThrowsStopsTheFifoAndIsToldOnce() {
        List<FifoEntry<V1Pod>> applied = new ArrayList<>();
        SteppedFifo<V1Pod> failing = new SteppedFifo<>(cache, UnaryOperator.identity(), (producer, entry) -> {
            applied.add(entry);
            throw new IllegalStateException("apply bug");
        });
        failing.fifo.add(pod("ns", "a", "1"));
        failing.fifo.add(pod("ns", "b", "1"));
        failing.drain();
        failing.fifo.add(pod("ns", "c", "1"));
        failing.fifo.resync();
        failing.drain();

        assertThat(applied).hasSize(1);
        assertThat(failing.failures).singleElement().satisfies(e -> assertThat(e).hasMessage("apply bug"));
    }

    @Test
    void aDrainSchedulerThatRejectsTheLoopStopsTheFifoAndTellsTheConsumer() {
        Scheduler disposed = VirtualTimeScheduler.create();
        disposed.dispose();
        List<FifoEntry<V1Pod>> applied = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        DeltaFifo<V1Pod> rejected = new DeltaFifo<>(cache, UnaryOperator.identity(), disposed, e -> { }, () -> { });
        rejected.start(new DeltaFifo.EntryConsumer<>() {
            @Override
            public void accept(FifoEntry<V1Pod> entry) {
                applied.add(entry);
            }

            @Override
            public void failed(Throwable cause) {
                failures.add(cause);
            }
        });
        rejected.add(pod("ns", "a", "1"));
        rejected.add(pod("ns", "b", "1"));

        assertThat(applied).isEmpty();
        assertThat(failures).singleElement().isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void aRejectionBeforeTheConsumerStartedIsToldWhenItStarts() {
        Scheduler disposed = VirtualTimeScheduler.create();
        disposed.dispose();
        List<Throwable> failures = new ArrayList<>();
        DeltaFifo<V1Pod> rejected = new DeltaFifo<>(cache, UnaryOperator.identity(), disposed, e -> { }, () -> { });
        rejected.wake();
        rejected.start(new DeltaFifo.EntryConsumer<>() {
            @Override
            public void accept(FifoEntry<V1Pod> entry) {
                throw new AssertionError("no entry after a rejection");
            }

            @Override
            public void failed(Throwable cause) {
                failures.add(cause);
            }
        });
        rejected.add(pod("ns", "a", "1"));

        assertThat(failures).singleElement().isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void stoppingDiscardsPendingAndLaterPushes() {
        fifo.add(pod("ns", "a", "1"));
        consumer.stop();
        fifo.add(pod("ns", "b", "1"));
        fifo.replace(List.of(pod("ns", "c", "1")), "3", 1);
        assertThat(drain()).isEmpty();
        assertThat(consumer.failures).isEmpty();
    }

    @Test
    void theStoreVersionFollowsWhatTheConsumerWasHandedAndBookmarksWhenNothingIsPending() {
        List<String> versionsSeen = new ArrayList<>();
        List<Boolean> reached6 = new ArrayList<>();
        SteppedFifo<V1Pod> observing = new SteppedFifo<>(cache, UnaryOperator.identity(),
                (producer, entry) -> versionsSeen.add(producer.storeVersion().current()));
        DeltaFifo<V1Pod> observed = observing.fifo;
        observed.replace(List.of(pod("ns", "a", "3")), "5", 1);
        observed.update(pod("ns", "a", "6"));
        observed.storeVersion().reached("6").subscribe(null, null, () -> reached6.add(versionsSeen.size() == 2));
        assertThat(observed.storeVersion().current()).as("nothing delivered").isEmpty();

        observing.drain();
        assertThat(versionsSeen).as("while the relist is applied: nothing; then the relist, with a@6 still pending")
                .containsExactly("", "5");
        assertThat(reached6).as("reached once a@6 was applied").containsExactly(true);
        assertThat(observed.storeVersion().current()).isEqualTo("6");

        observed.bookmark("9");
        assertThat(observed.storeVersion().current()).as("not before the drain loop ran").isEqualTo("6");
        observing.drain();
        assertThat(observed.storeVersion().current()).isEqualTo("9");
    }
}
