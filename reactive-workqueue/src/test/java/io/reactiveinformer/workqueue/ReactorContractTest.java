package io.reactiveinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.Scannable;
import reactor.core.Scannable.Attr;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;
import reactor.test.subscriber.TestSubscriber;
import reactor.test.util.RaceTestUtils;

/**
 * {@link WorkQueue#get()} and {@link WorkQueue#process} behave as Reactor operators do (their assembly
 * is in {@link AssemblyHookTest}): their subscriptions are {@link Scannable}, {@code request(n <= 0)}
 * is an error (rule 3.9), and a cancellation or request racing a delivery neither loses an item, nor
 * hands it out twice, nor leaves it in processing.
 */
class ReactorContractTest {

    private static final int RACES = 2_000;

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final WorkQueue<String> queue = Queues.virtual(time);
    private final List<String> started = new CopyOnWriteArrayList<>();

    private static Scannable subscriptionOf(TestSubscriber<?> subscriber) {
        return Scannable.from(subscriber.scan(Attr.PARENT));
    }

    /** Straight to the subscription: {@code TestSubscriber.request} drops an invalid amount itself. */
    private static void requestDirectly(TestSubscriber<?> subscriber, long n) {
        ((Subscription) subscriber.scan(Attr.PARENT)).request(n);
    }

    /**
     * Whether {@code item}, the only item the queue may hold, is free: ready already or done, not in
     * processing (where adding it would only mark it dirty), so adding it leaves it ready.
     */
    private static boolean notInProcessing(WorkQueue<String> queue, String item) {
        queue.add(item);
        return queue.size() == 1;
    }

    // ---------------------------------------------------------------- get()

    @Test
    void getsSubscriptionIsScannable() {
        TestSubscriber<String> subscriber = TestSubscriber.builder().initialRequest(0).build();
        queue.get().subscribe(subscriber);
        Scannable subscription = subscriptionOf(subscriber);

        assertThat(subscription.scan(Attr.ACTUAL)).isSameAs(subscriber);
        assertThat(subscription.scan(Attr.RUN_STYLE)).isEqualTo(Attr.RunStyle.ASYNC);
        assertThat(subscription.scan(Attr.CANCELLED)).isFalse();
        assertThat(subscription.scan(Attr.TERMINATED)).isFalse();
        assertThat(subscription.scan(Attr.REQUESTED_FROM_DOWNSTREAM)).isZero();

        subscriber.request(1);
        assertThat(subscription.scan(Attr.REQUESTED_FROM_DOWNSTREAM)).isEqualTo(1);
        assertThat(subscription.scan(Attr.TERMINATED)).isFalse();

        queue.add("a");
        assertThat(subscriber.getReceivedOnNext()).containsExactly("a");
        assertThat(subscription.scan(Attr.TERMINATED)).isTrue();
        assertThat(subscription.scan(Attr.CANCELLED)).isFalse();
    }

    @Test
    void aCancelledGetScansAsCancelled() {
        TestSubscriber<String> subscriber = TestSubscriber.create();
        queue.get().subscribe(subscriber);

        subscriber.cancel();

        Scannable subscription = subscriptionOf(subscriber);
        assertThat(subscription.scan(Attr.CANCELLED)).isTrue();
        assertThat(subscription.scan(Attr.TERMINATED)).isFalse();
    }

    @Test
    void aNonPositiveRequestBeforeTheItemFailsTheGetAndTakesNothing() {
        TestSubscriber<String> subscriber = TestSubscriber.builder().initialRequest(0).build();
        queue.get().subscribe(subscriber);

        requestDirectly(subscriber, 0);
        queue.add("a");

        assertThat(subscriber.expectTerminalError())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3.9");
        assertThat(queue.size()).isEqualTo(1);
    }

    @Test
    void aNonPositiveRequestWhileParkedFailsTheGetAndUnparksIt() {
        TestSubscriber<String> subscriber = TestSubscriber.create();
        queue.get().subscribe(subscriber);

        requestDirectly(subscriber, -1);
        queue.add("a");

        assertThat(subscriber.expectTerminalError()).isInstanceOf(IllegalArgumentException.class);
        assertThat(subscriber.getReceivedOnNext()).isEmpty();
        assertThat(queue.size()).as("not handed to the failed demand").isEqualTo(1);
    }

    @Test
    void aNonPositiveRequestAfterTheItemIsIgnored() {
        TestSubscriber<String> subscriber = TestSubscriber.create();
        queue.add("a");
        queue.get().subscribe(subscriber);

        requestDirectly(subscriber, 0);

        assertThat(subscriber.getReceivedOnNext()).containsExactly("a");
        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscriber.getProtocolErrors()).isEmpty();
    }

    @Test
    void cancelRacingAGetsDeliveryNeitherLosesNorStrandsTheItem() {
        for (int i = 0; i < RACES; i++) {
            WorkQueue<String> racing = WorkQueue.<String>builder().name("race").build();
            TestSubscriber<String> subscriber = TestSubscriber.create();
            racing.get().subscribe(subscriber);

            RaceTestUtils.race(subscriber::cancel, () -> racing.add("x"));

            List<String> received = subscriber.getReceivedOnNext();
            assertThat(received.size() + racing.size()).as("the item was delivered or is ready again").isEqualTo(1);
            assertThat(subscriber.isTerminatedError()).isFalse();
            assertThat(subscriber.getProtocolErrors()).isEmpty();
            if (received.isEmpty()) {
                assertThat(subscriber.isTerminated()).isFalse();
            } else {
                assertThat(subscriber.isTerminatedComplete()).isTrue();
                racing.done("x");
            }
            assertThat(notInProcessing(racing, "x")).isTrue();
        }
    }

    @Test
    void requestRacingAnAddDeliversTheItemOnce() {
        for (int i = 0; i < RACES; i++) {
            WorkQueue<String> racing = WorkQueue.<String>builder().name("race").build();
            TestSubscriber<String> subscriber = TestSubscriber.builder().initialRequest(0).build();
            racing.get().subscribe(subscriber);

            RaceTestUtils.race(() -> subscriber.request(1), () -> racing.add("x"));

            assertThat(subscriber.getReceivedOnNext()).containsExactly("x");
            assertThat(subscriber.isTerminatedComplete()).isTrue();
            assertThat(racing.size()).isZero();
            assertThat(subscriber.getProtocolErrors()).isEmpty();
        }
    }

    // ---------------------------------------------------------------- process()

    @Test
    void processSubscriptionIsScannableWithItsSlotsAsInners() {
        Sinks.Empty<Void> work = Sinks.empty();
        TestSubscriber<Void> subscriber = TestSubscriber.create();
        queue.process(2, item -> work.asMono()).subscribe(subscriber);
        Scannable subscription = subscriptionOf(subscriber);

        assertThat(subscription.scan(Attr.ACTUAL)).isSameAs(subscriber);
        assertThat(subscription.scan(Attr.RUN_STYLE)).isEqualTo(Attr.RunStyle.ASYNC);
        assertThat(subscription.scan(Attr.CANCELLED)).isFalse();
        assertThat(subscription.scan(Attr.TERMINATED)).isFalse();
        assertThat(subscription.scan(Attr.REQUESTED_FROM_DOWNSTREAM)).isEqualTo(Long.MAX_VALUE);
        List<? extends Scannable> slots = subscription.inners().toList();
        assertThat(slots).hasSize(2);
        assertThat(slots).allSatisfy(slot -> {
            assertThat(slot.scan(Attr.ACTUAL)).isSameAs(subscription);
            assertThat(slot.scan(Attr.PARENT)).isNull();
        });

        queue.add("a");
        assertThat(slots).filteredOn(slot -> slot.scan(Attr.PARENT) != null).hasSize(1);

        work.tryEmitEmpty();
        queue.shutDown();
        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscription.scan(Attr.TERMINATED)).isTrue();
        assertThat(subscription.scan(Attr.CANCELLED)).isFalse();
    }

    @Test
    void aCancelledProcessScansAsCancelled() {
        TestSubscriber<Void> subscriber = TestSubscriber.create();
        queue.process(1, item -> Mono.empty()).subscribe(subscriber);

        subscriber.cancel();

        Scannable subscription = subscriptionOf(subscriber);
        assertThat(subscription.scan(Attr.CANCELLED)).isTrue();
        assertThat(subscription.scan(Attr.TERMINATED)).isFalse();
        assertThat(subscription.inners()).allSatisfy(slot -> assertThat(slot.scan(Attr.CANCELLED)).isTrue());
    }

    @Test
    void aNonPositiveRequestStopsTheWorkersAndFailsTheProcess() {
        Sinks.Empty<Void> work = Sinks.empty();
        TestSubscriber<Void> subscriber = TestSubscriber.create();
        queue.process(1, item -> {
            started.add(item);
            return work.asMono();
        }).subscribe(subscriber);
        queue.add("a");

        requestDirectly(subscriber, 0);

        assertThat(subscriber.expectTerminalError())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3.9");
        assertThat(queue.size()).as("the running item is given back").isEqualTo(1);
        queue.add("b");
        queue.shutDown();
        assertThat(started).containsExactly("a");
        assertThat(subscriber.getProtocolErrors()).as("no completion after the error").isEmpty();
        Scannable subscription = subscriptionOf(subscriber);
        assertThat(subscription.scan(Attr.TERMINATED)).isTrue();
        assertThat(subscription.scan(Attr.CANCELLED)).isFalse();
    }

    @Test
    void cancelRacingAProcessDeliveryNeitherLosesNorRepeatsTheItem() {
        for (int i = 0; i < RACES; i++) {
            WorkQueue<String> racing = WorkQueue.<String>builder().name("race").build();
            List<String> worked = new CopyOnWriteArrayList<>();
            TestSubscriber<Void> subscriber = TestSubscriber.create();
            racing.process(1, item -> {
                worked.add(item);
                return Mono.empty();
            }).subscribe(subscriber);

            RaceTestUtils.race(subscriber::cancel, () -> racing.add("x"));

            assertThat(worked).hasSizeLessThanOrEqualTo(1);
            if (worked.isEmpty()) {
                assertThat(racing.size()).as("not taken: still ready").isEqualTo(1);
            }
            assertThat(notInProcessing(racing, "x")).as("done or given back, never stranded").isTrue();
            racing.add("y");
            assertThat(worked).as("no work after the cancellation returned").doesNotContain("y");
            assertThat(subscriber.isTerminated()).isFalse();
            assertThat(subscriber.getProtocolErrors()).isEmpty();
        }
    }

    @Test
    void cancelRacingTheWorksCompletionSettlesTheItemOnce() {
        for (int i = 0; i < RACES; i++) {
            WorkQueue<String> racing = WorkQueue.<String>builder().name("race").build();
            Sinks.Empty<Void> work = Sinks.empty();
            TestSubscriber<Void> subscriber = TestSubscriber.create();
            racing.add("x");
            racing.process(1, item -> work.asMono()).subscribe(subscriber);

            RaceTestUtils.race(subscriber::cancel, work::tryEmitEmpty);

            assertThat(racing.size()).as("done (0) or given back (1)").isBetween(0, 1);
            assertThat(notInProcessing(racing, "x")).as("never stranded in processing").isTrue();
            assertThat(subscriber.isTerminated()).isFalse();
            assertThat(subscriber.getProtocolErrors()).isEmpty();
        }
    }
}
