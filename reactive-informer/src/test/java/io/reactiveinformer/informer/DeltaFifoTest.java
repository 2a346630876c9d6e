package io.reactiveinformer.informer;

import io.reactiveinformer.cache.ConcurrentIndexer;
import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.test.StepVerifier;
import reactor.test.subscriber.TestSubscriber;

class DeltaFifoTest {

    private final ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
    private final DeltaFifo<V1Pod> fifo = new DeltaFifo<>(cache);

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

    private List<String> drainAfterClose() {
        fifo.close();
        return fifo.entries().map(DeltaFifoTest::describe).collectList().block();
    }

    @Test
    void keysPopInFirstPendingOrderWithTheirDeltasCoalesced() {
        fifo.add(pod("ns", "a", "1"));
        fifo.add(pod("ns", "b", "1"));
        fifo.update(pod("ns", "a", "2"));
        fifo.update(pod("ns", "a", "3"));
        fifo.add(pod("ns", "c", "1"));
        fifo.update(pod("ns", "b", "2"));

        assertThat(drainAfterClose()).containsExactly("ns/a[ADDED:1,UPDATED:3]", "ns/b[ADDED:1,UPDATED:2]", "ns/c[ADDED:1]");
    }

    @Test
    void requestOneDeliversExactlyOneAndPushesWithoutDemandWait() {
        TestSubscriber<FifoEntry<V1Pod>> consumer = TestSubscriber.builder().initialRequest(0).build();
        fifo.entries().subscribe(consumer);

        fifo.add(pod("ns", "a", "1"));
        fifo.add(pod("ns", "b", "1"));
        fifo.add(pod("ns", "c", "1"));
        assertThat(consumer.getReceivedOnNext()).isEmpty();

        consumer.request(1);
        assertThat(consumer.getReceivedOnNext()).extracting(DeltaFifoTest::describe).containsExactly("ns/a[ADDED:1]");

        fifo.update(pod("ns", "b", "2"));
        fifo.add(pod("ns", "a", "2"));
        assertThat(consumer.getReceivedOnNext()).hasSize(1);

        consumer.request(10);
        assertThat(consumer.getReceivedOnNext()).extracting(DeltaFifoTest::describe)
                .containsExactly("ns/a[ADDED:1]", "ns/b[ADDED:1,UPDATED:2]", "ns/c[ADDED:1]", "ns/a[ADDED:2]");

        fifo.add(pod("ns", "d", "1"));
        assertThat(consumer.getReceivedOnNext()).hasSize(5);
        assertThat(consumer.isTerminatedOrCancelled()).isFalse();
        consumer.cancel();
    }

    @Test
    void stepByStepDemand() {
        fifo.add(pod("ns", "a", "1"));
        StepVerifier.create(fifo.entries().map(DeltaFifoTest::describe), 0)
                .expectSubscription()
                .then(() -> fifo.add(pod("ns", "b", "1")))
                .thenRequest(1)
                .expectNext("ns/a[ADDED:1]")
                .then(() -> fifo.update(pod("ns", "b", "2")))
                .then(fifo::close)
                .thenRequest(1)
                .expectNext("ns/b[ADDED:1,UPDATED:2]")
                .verifyComplete();
    }

    @Test
    void deletionOfAKeyUnknownToQueueAndCacheIsIgnored() {
        fifo.delete(pod("ns", "ghost", "1"));
        assertThat(drainAfterClose()).isEmpty();
    }

    @Test
    void deletionOfACachedKeyIsQueued() {
        cache.put(pod("ns", "a", "1"));
        fifo.delete(pod("ns", "a", "2"));
        assertThat(drainAfterClose()).containsExactly("ns/a[DELETED:2]");
    }

    @Test
    void deletionOfAPendingKeyIsQueuedAndTrailingDeletionsCollapse() {
        fifo.add(pod("ns", "a", "1"));
        fifo.delete(pod("ns", "a", "2"));
        fifo.delete(pod("ns", "a", "3"));
        assertThat(drainAfterClose()).containsExactly("ns/a[ADDED:1,DELETED:3]");
    }

    @Test
    void replaceSupersedesEverythingPending() {
        cache.put(pod("ns", "b", "1"));
        fifo.add(pod("ns", "a", "1"));
        fifo.update(pod("ns", "b", "2"));
        fifo.replace(List.of(pod("ns", "c", "5"), pod("ns", "b", "5")), "10");
        fifo.update(pod("ns", "c", "6"));
        fifo.update(pod("ns", "c", "7"));

        // not initial: a FIFO whose first change was not a relist counts as synced from then on
        assertThat(drainAfterClose()).containsExactly("replace@10[ns/c:5,ns/b:5]", "ns/c[UPDATED:7]");
    }

    @Test
    void secondReplaceSupersedesTheFirstAndWhatFollowedIt() {
        fifo.replace(List.of(pod("ns", "a", "1")), "10");
        fifo.add(pod("ns", "b", "2"));
        fifo.replace(List.of(pod("ns", "c", "3")), "20");
        fifo.update(pod("ns", "c", "4"));

        assertThat(drainAfterClose()).containsExactly("replace@20[ns/c:3]*", "ns/c[UPDATED:4]");
    }

    @Test
    void behindAPendingReplaceDeletionsAreJudgedAgainstTheListedKeys() {
        cache.put(pod("ns", "cached-not-listed", "1"));
        fifo.replace(List.of(pod("ns", "listed", "1")), "10");
        fifo.delete(pod("ns", "listed", "2"));
        fifo.delete(pod("ns", "cached-not-listed", "2"));

        assertThat(drainAfterClose()).containsExactly("replace@10[ns/listed:1]*", "ns/listed[DELETED:2]");
    }

    @Test
    void duplicateKeysInAListKeepTheLastObject() {
        fifo.replace(List.of(pod("ns", "a", "1"), pod("ns", "b", "1"), pod("ns", "a", "2")), "10");
        assertThat(drainAfterClose()).containsExactly("replace@10[ns/a:2,ns/b:1]*");
    }

    @Test
    void resyncQueuesSyncOnlyForCachedKeysWithNothingPending() {
        cache.put(pod("ns", "a", "1"));
        cache.put(pod("ns", "b", "1"));
        cache.put(pod("ns", "c", "1"));
        fifo.update(pod("ns", "b", "2"));
        fifo.resync();
        fifo.resync();

        List<String> entries = drainAfterClose();
        assertThat(entries).first().isEqualTo("ns/b[UPDATED:2]");
        assertThat(entries).containsExactlyInAnyOrder("ns/b[UPDATED:2]", "ns/a[SYNC:1]", "ns/c[SYNC:1]");
    }

    @Test
    void resyncDoesNothingWhileAReplaceIsPending() {
        cache.put(pod("ns", "a", "1"));
        fifo.replace(List.of(pod("ns", "b", "1")), "10");
        fifo.resync();
        assertThat(drainAfterClose()).containsExactly("replace@10[ns/b:1]*");
    }

    @Test
    void transformRunsOncePerPushedObject() {
        AtomicInteger calls = new AtomicInteger();
        DeltaFifo<V1Pod> transforming = new DeltaFifo<>(cache, pod -> {
            calls.incrementAndGet();
            pod.getMetadata().setManagedFields(null);
            return pod;
        });
        cache.put(pod("ns", "cached", "1"));
        transforming.add(withManagedFields(pod("ns", "a", "1")));
        transforming.update(withManagedFields(pod("ns", "a", "2")));
        transforming.replace(List.of(withManagedFields(pod("ns", "b", "1")), withManagedFields(pod("ns", "c", "1"))), "5");
        transforming.delete(withManagedFields(pod("ns", "b", "2")));
        transforming.resync();
        transforming.close();

        List<FifoEntry<V1Pod>> entries = transforming.entries().collectList().block();
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
    void syncedOnceTheFirstReplaceIsDelivered() {
        TestSubscriber<FifoEntry<V1Pod>> consumer = TestSubscriber.builder().initialRequest(0).build();
        fifo.entries().subscribe(consumer);
        assertThat(fifo.hasSynced()).isFalse();

        fifo.replace(List.of(pod("ns", "a", "1")), "10");
        assertThat(fifo.hasSynced()).isFalse();
        fifo.replace(List.of(pod("ns", "b", "1")), "11");
        fifo.add(pod("ns", "c", "1"));

        consumer.request(1);
        assertThat(fifo.hasSynced()).isTrue();
        fifo.replace(List.of(), "12");
        consumer.request(2);
        assertThat(consumer.getReceivedOnNext()).extracting(DeltaFifoTest::describe)
                .containsExactly("replace@11[ns/b:1]*", "replace@12[]");
        consumer.cancel();
    }

    @Test
    void syncedDuringOnNextOnlyAfterItReturns() {
        fifo.replace(List.of(), "1");
        List<Boolean> syncedInside = new ArrayList<>();
        fifo.entries().take(1).doOnNext(e -> syncedInside.add(fifo.hasSynced())).blockLast();
        assertThat(syncedInside).containsExactly(false);
        assertThat(fifo.hasSynced()).isTrue();
    }

    @Test
    void aFirstChangeThatIsNotAReplaceMeansSynced() {
        fifo.add(pod("ns", "a", "1"));
        assertThat(fifo.hasSynced()).isTrue();
    }

    @Test
    void secondSubscriberIsRejected() {
        TestSubscriber<FifoEntry<V1Pod>> first = TestSubscriber.create();
        fifo.entries().subscribe(first);

        StepVerifier.create(fifo.entries())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("single subscriber"))
                .verify();
        first.cancel();
    }

    @Test
    void closeCompletesAfterWhatWasPushedBeforeIt() {
        fifo.add(pod("ns", "a", "1"));
        fifo.close();
        fifo.add(pod("ns", "b", "1"));
        StepVerifier.create(fifo.entries().map(DeltaFifoTest::describe), 0)
                .thenRequest(1)
                .expectNext("ns/a[ADDED:1]")
                .verifyComplete();
    }

    @Test
    void consumerThrowingFromOnNextGetsTheErrorAndEndsTheFifo() {
        List<Throwable> errors = new ArrayList<>();
        List<FifoEntry<V1Pod>> received = new ArrayList<>();
        fifo.entries().subscribe(new CoreSubscriber<FifoEntry<V1Pod>>() {
            @Override
            public void onSubscribe(Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(FifoEntry<V1Pod> entry) {
                received.add(entry);
                throw new IllegalStateException("handler bug");
            }

            @Override
            public void onError(Throwable t) {
                errors.add(t);
            }

            @Override
            public void onComplete() {
                errors.add(new AssertionError("completed"));
            }
        });
        fifo.add(pod("ns", "a", "1"));
        fifo.add(pod("ns", "b", "1"));

        assertThat(received).hasSize(1);
        assertThat(errors).singleElement().satisfies(e -> assertThat(e).hasMessage("handler bug"));
    }

    @Test
    void cancelDiscardsPendingAndLaterPushes() {
        TestSubscriber<FifoEntry<V1Pod>> consumer = TestSubscriber.builder().initialRequest(0).build();
        fifo.entries().subscribe(consumer);
        fifo.add(pod("ns", "a", "1"));
        consumer.cancel();
        fifo.add(pod("ns", "b", "1"));
        consumer.request(5);
        assertThat(consumer.getReceivedOnNext()).isEmpty();
        assertThat(consumer.getReceivedOnNextAfterCancellation()).isEmpty();
    }

    @Test
    void theStoreVersionFollowsWhatTheConsumerWasHandedAndBookmarksWhenNothingIsPending() {
        TestSubscriber<FifoEntry<V1Pod>> consumer = TestSubscriber.builder().initialRequest(0).build();
        fifo.entries().subscribe(consumer);
        fifo.replace(List.of(pod("ns", "a", "3")), "5");
        fifo.update(pod("ns", "a", "6"));
        assertThat(fifo.storeVersion().current()).as("nothing delivered").isEmpty();

        consumer.request(1);
        assertThat(fifo.storeVersion().current()).as("the relist, with a@6 still pending").isEqualTo("5");
        StepVerifier.create(fifo.storeVersion().reached("6")).expectSubscription().expectNoEvent(java.time.Duration.ZERO)
                .then(() -> consumer.request(1))
                .verifyComplete();

        fifo.bookmark("9");
        assertThat(fifo.storeVersion().current()).isEqualTo("9");
    }
}
