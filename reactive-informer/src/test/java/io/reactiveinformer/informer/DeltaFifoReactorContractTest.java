package io.reactiveinformer.informer;

import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.cache.ConcurrentIndexer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Scannable;
import reactor.core.Scannable.Attr;
import reactor.core.publisher.Hooks;
import reactor.test.subscriber.TestSubscriber;
import reactor.test.util.RaceTestUtils;

/**
 * The FIFO's flux behaves as a Reactor operator does: assembly hooks see it, its subscription is
 * {@link Scannable}, {@code request(n <= 0)} is an error (rule 3.9), and cancelling or requesting
 * while another thread pushes neither loses, repeats nor over-delivers entries.
 */
class DeltaFifoReactorContractTest {

    private static final int RACES = 2_000;
    private static final String HOOK = "delta-fifo-contract-test";

    private final ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
    private final DeltaFifo<V1Pod> fifo = new DeltaFifo<>(cache);

    @AfterEach
    void resetHooks() {
        Hooks.resetOnEachOperator(HOOK);
    }

    private static Scannable subscriptionOf(TestSubscriber<?> consumer) {
        return Scannable.from(consumer.scan(Attr.PARENT));
    }

    private static List<String> keys(List<FifoEntry<V1Pod>> entries) {
        return entries.stream().map(e -> ((FifoEntry.Deltas<V1Pod>) e).key()).toList();
    }

    /** Everything the consumer received, before and after it cancelled, in order. */
    private static List<String> allReceived(TestSubscriber<FifoEntry<V1Pod>> consumer) {
        return keys(consumer.getReceivedOnNext());
    }

    @Test
    void entriesGoThroughTheAssemblyHooks() {
        List<Object> assembled = new ArrayList<>();
        Hooks.onEachOperator(HOOK, publisher -> {
            assembled.add(publisher.getClass().getSimpleName());
            return publisher;
        });

        fifo.entries();

        assertThat(assembled).containsExactly("Entries");
    }

    @Test
    void theSubscriptionIsScannable() {
        TestSubscriber<FifoEntry<V1Pod>> consumer = TestSubscriber.builder().initialRequest(0).build();
        fifo.entries().subscribe(consumer);
        Scannable subscription = subscriptionOf(consumer);

        assertThat(subscription.scan(Attr.ACTUAL)).isSameAs(consumer);
        assertThat(subscription.scan(Attr.RUN_STYLE)).isEqualTo(Attr.RunStyle.ASYNC);
        assertThat(subscription.scan(Attr.CANCELLED)).isFalse();
        assertThat(subscription.scan(Attr.TERMINATED)).isFalse();
        assertThat(subscription.scan(Attr.REQUESTED_FROM_DOWNSTREAM)).isZero();
        assertThat(subscription.scan(Attr.BUFFERED)).isZero();

        fifo.add(pod("ns", "a", "1"));
        fifo.add(pod("ns", "b", "1"));
        fifo.update(pod("ns", "a", "2"));
        assertThat(subscription.scan(Attr.BUFFERED)).as("two keys pending").isEqualTo(2);

        consumer.request(1);
        assertThat(subscription.scan(Attr.BUFFERED)).isEqualTo(1);
        assertThat(subscription.scan(Attr.REQUESTED_FROM_DOWNSTREAM)).isZero();

        consumer.request(5);
        assertThat(subscription.scan(Attr.BUFFERED)).isZero();
        assertThat(subscription.scan(Attr.REQUESTED_FROM_DOWNSTREAM)).isEqualTo(4);

        fifo.close();
        assertThat(consumer.isTerminatedComplete()).isTrue();
        assertThat(subscription.scan(Attr.TERMINATED)).isTrue();
        assertThat(subscription.scan(Attr.CANCELLED)).isFalse();
    }

    @Test
    void aCancelledSubscriptionScansAsCancelledWithNothingBuffered() {
        TestSubscriber<FifoEntry<V1Pod>> consumer = TestSubscriber.builder().initialRequest(0).build();
        fifo.entries().subscribe(consumer);
        fifo.add(pod("ns", "a", "1"));

        consumer.cancel();

        Scannable subscription = subscriptionOf(consumer);
        assertThat(subscription.scan(Attr.CANCELLED)).isTrue();
        assertThat(subscription.scan(Attr.TERMINATED)).isFalse();
        assertThat(subscription.scan(Attr.BUFFERED)).isZero();
    }

    @Test
    void aNonPositiveRequestSignalsIllegalArgumentExceptionAndEndsTheFifo() {
        TestSubscriber<FifoEntry<V1Pod>> consumer = TestSubscriber.builder().initialRequest(0).build();
        fifo.entries().subscribe(consumer);
        fifo.add(pod("ns", "a", "1"));

        // straight to the subscription: TestSubscriber.request drops an invalid amount itself
        ((Subscription) subscriptionOf(consumer)).request(0);

        assertThat(consumer.expectTerminalError())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3.9");
        Scannable subscription = subscriptionOf(consumer);
        assertThat(subscription.scan(Attr.TERMINATED)).isTrue();
        assertThat(subscription.scan(Attr.BUFFERED)).isZero();
        fifo.add(pod("ns", "b", "1"));
        consumer.request(5);
        assertThat(consumer.getReceivedOnNext()).isEmpty();
        assertThat(consumer.getProtocolErrors()).isEmpty();
    }

    @Test
    void aNonPositiveRequestFromOnSubscribeIsSignalledOnceOnSubscribeHasReturned() {
        List<String> signals = new ArrayList<>();
        AtomicReference<Throwable> error = new AtomicReference<>();
        fifo.add(pod("ns", "a", "1"));
        fifo.entries().subscribe(new CoreSubscriber<FifoEntry<V1Pod>>() {
            @Override
            public void onSubscribe(Subscription s) {
                s.request(-1);
                signals.add("onSubscribe returns");
            }

            @Override
            public void onNext(FifoEntry<V1Pod> entry) {
                signals.add("onNext");
            }

            @Override
            public void onError(Throwable t) {
                error.set(t);
                signals.add("onError");
            }

            @Override
            public void onComplete() {
                signals.add("onComplete");
            }
        });

        assertThat(signals).containsExactly("onSubscribe returns", "onError");
        assertThat(error.get()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cancelRacingDeliveryNeitherLosesNorRepeatsAndStopsDelivery() {
        List<String> pushed = List.of("ns/k0", "ns/k1", "ns/k2", "ns/k3", "ns/k4");
        for (int i = 0; i < RACES; i++) {
            DeltaFifo<V1Pod> racing = new DeltaFifo<>(new ConcurrentIndexer<>());
            TestSubscriber<FifoEntry<V1Pod>> consumer = TestSubscriber.create();
            racing.entries().subscribe(consumer);

            RaceTestUtils.race(
                    () -> {
                        for (int k = 0; k < pushed.size(); k++) {
                            racing.add(pod("ns", "k" + k, "1"));
                        }
                    },
                    consumer::cancel);

            List<String> received = allReceived(consumer);
            assertThat(pushed.subList(0, received.size())).as("a prefix, in order, without repeats").isEqualTo(received);
            assertThat(consumer.isTerminated()).isFalse();
            assertThat(consumer.getProtocolErrors()).isEmpty();
            Scannable subscription = subscriptionOf(consumer);
            assertThat(subscription.scan(Attr.CANCELLED)).isTrue();
            assertThat(subscription.scan(Attr.BUFFERED)).as("pending entries discarded").isZero();

            racing.add(pod("ns", "late", "1"));
            assertThat(allReceived(consumer)).as("nothing after the cancellation returned").isEqualTo(received);
            assertThat(subscription.scan(Attr.BUFFERED)).isZero();
        }
    }

    @Test
    void requestRacingDeliveryDeliversExactlyTheDemand() {
        for (int i = 0; i < RACES; i++) {
            DeltaFifo<V1Pod> racing = new DeltaFifo<>(new ConcurrentIndexer<>());
            TestSubscriber<FifoEntry<V1Pod>> consumer = TestSubscriber.builder().initialRequest(0).build();
            racing.entries().subscribe(consumer);

            RaceTestUtils.race(
                    () -> consumer.request(1),
                    () -> racing.add(pod("ns", "a", "1")),
                    () -> racing.add(pod("ns", "b", "1")));

            assertThat(consumer.getReceivedOnNext()).hasSize(1);
            Scannable subscription = subscriptionOf(consumer);
            assertThat(subscription.scan(Attr.BUFFERED)).isEqualTo(1);
            assertThat(subscription.scan(Attr.REQUESTED_FROM_DOWNSTREAM)).isZero();

            consumer.request(1);
            assertThat(keys(consumer.getReceivedOnNext())).containsExactlyInAnyOrder("ns/a", "ns/b");
            assertThat(subscription.scan(Attr.BUFFERED)).isZero();
            assertThat(consumer.getProtocolErrors()).isEmpty();
        }
    }
}
