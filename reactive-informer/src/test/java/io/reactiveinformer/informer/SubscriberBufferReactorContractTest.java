package io.reactiveinformer.informer;

import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.Scannable;
import reactor.core.Scannable.Attr;
import reactor.core.publisher.Hooks;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;
import reactor.test.subscriber.TestSubscriber;
import reactor.test.util.RaceTestUtils;

/**
 * A handler's flux behaves as a Reactor operator does: assembly hooks see it, its subscription (the
 * {@link SubscriberBuffer}) is {@link Scannable}, {@code request(n <= 0)} is an error (rule 3.9), and
 * cancelling or requesting while the informer offers neither loses, repeats nor over-delivers
 * notifications, and leaves nothing buffered or registered.
 */
class SubscriberBufferReactorContractTest {

    private static final int RACES = 2_000;
    private static final String HOOK = "subscriber-buffer-contract-test";

    /** What the buffer told its owner, in order. */
    private final Queue<String> told = new ConcurrentLinkedQueue<>();
    private final SubscriberBuffer.Owner owner = new SubscriberBuffer.Owner() {
        @Override
        public void synced() {
            told.add("synced");
        }

        @Override
        public void terminated(Throwable error) {
            told.add("terminated " + (error == null ? "" : error.getClass().getSimpleName()));
        }

        @Override
        public void handlerFailed(Notification<?> notification, Throwable error) {
            told.add("handlerFailed");
        }
    };

    @AfterEach
    void resetHooks() {
        Hooks.resetOnEachOperator(HOOK);
    }

    /** A started buffer delivering on the calling thread, as the informer creates it. */
    private SubscriberBuffer<V1Pod> buffer(TestSubscriber<Notification<V1Pod>> subscriber) {
        SubscriberBuffer<V1Pod> buffer = new SubscriberBuffer<>("pods", "h",
                PendingNotifications.of(SubscriberOptions.defaults()), Schedulers.immediate(), Schedulers.immediate(), false,
                owner, subscriber);
        subscriber.onSubscribe(buffer);
        buffer.start();
        return buffer;
    }

    private static Notification<V1Pod> added(String name) {
        return new Notification.Added<>("ns/" + name, pod("ns", name, "1"), false);
    }

    /** Everything the subscriber received, before and after it cancelled, in order. */
    private static List<String> allReceived(TestSubscriber<Notification<V1Pod>> subscriber) {
        return subscriber.getReceivedOnNext().stream().map(Notification::key).toList();
    }

    @Test
    void notificationsGoThroughTheAssemblyHooks() {
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class,
                StaticLister.pods()).build();
        List<String> assembled = new ArrayList<>();
        Hooks.onEachOperator(HOOK, publisher -> {
            assembled.add(publisher.getClass().getSimpleName());
            return publisher;
        });

        informer.register(SubscriberOptions.defaults()).notifications();

        assertThat(assembled).containsExactly("Notifications");
    }

    @Test
    void theSubscriptionIsScannable() {
        TestSubscriber<Notification<V1Pod>> subscriber = TestSubscriber.builder().initialRequest(0).build();
        SubscriberBuffer<V1Pod> buffer = buffer(subscriber);

        assertThat(buffer.scan(Attr.ACTUAL)).isSameAs(subscriber);
        assertThat(buffer.scan(Attr.RUN_STYLE)).isEqualTo(Attr.RunStyle.ASYNC);
        assertThat(buffer.scan(Attr.NAME)).isEqualTo("pods/h");
        assertThat(buffer.scan(Attr.CANCELLED)).isFalse();
        assertThat(buffer.scan(Attr.TERMINATED)).isFalse();
        assertThat(buffer.scan(Attr.REQUESTED_FROM_DOWNSTREAM)).isZero();
        assertThat(buffer.scan(Attr.BUFFERED)).isZero();

        buffer.offer(added("a"), 0);
        buffer.offer(added("b"), 0);
        assertThat(buffer.scan(Attr.BUFFERED)).isEqualTo(2);

        subscriber.request(3);
        assertThat(buffer.scan(Attr.BUFFERED)).isZero();
        assertThat(buffer.scan(Attr.REQUESTED_FROM_DOWNSTREAM)).isEqualTo(1);

        buffer.complete();
        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(buffer.scan(Attr.TERMINATED)).isTrue();
        assertThat(buffer.scan(Attr.CANCELLED)).isFalse();
    }

    @Test
    void aCancelledBufferScansAsCancelledAndDropsWhatItHeld() {
        TestSubscriber<Notification<V1Pod>> subscriber = TestSubscriber.builder().initialRequest(0).build();
        SubscriberBuffer<V1Pod> buffer = buffer(subscriber);
        buffer.offer(added("a"), 0);

        subscriber.cancel();

        assertThat(buffer.scan(Attr.CANCELLED)).isTrue();
        assertThat(buffer.scan(Attr.TERMINATED)).isFalse();
        assertThat(buffer.scan(Attr.BUFFERED)).isZero();
        assertThat(told).containsExactly("terminated ");
    }

    @Test
    void aNonPositiveRequestEndsTheSubscriberWithIllegalArgumentException() {
        TestSubscriber<Notification<V1Pod>> subscriber = TestSubscriber.builder().initialRequest(0).build();
        SubscriberBuffer<V1Pod> buffer = buffer(subscriber);
        buffer.offer(added("a"), 0);

        // straight to the subscription: TestSubscriber.request drops an invalid amount itself
        buffer.request(-1);

        assertThat(subscriber.expectTerminalError())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3.9");
        assertThat(told).containsExactly("terminated IllegalArgumentException");
        assertThat(buffer.scan(Attr.TERMINATED)).isTrue();
        assertThat(buffer.depth()).isZero();
        buffer.offer(added("b"), 0);
        assertThat(buffer.depth()).as("an ended buffer ignores offers").isZero();
        assertThat(subscriber.getReceivedOnNext()).isEmpty();
    }

    @Test
    void aNonPositiveRequestThroughTheInformerRemovesTheHandler() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        FakePodServer server = new FakePodServer(time);
        server.put("a", "p1", "1");
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server).name("pods")
                .scheduler(time).build();
        informer.start();
        HandlerRegistration<V1Pod> handler = informer.register(SubscriberOptions.defaults());
        TestSubscriber<Notification<V1Pod>> subscriber = TestSubscriber.builder().initialRequest(0).build();
        handler.notifications().subscribe(subscriber);
        assertThat(informer.handlerCount()).isEqualTo(1);

        ((Subscription) subscriber.scan(Attr.PARENT)).request(0);

        assertThat(subscriber.expectTerminalError()).isInstanceOf(IllegalArgumentException.class);
        assertThat(informer.handlerCount()).isZero();
        assertThat(handler.bufferDepth()).isZero();
    }

    @Test
    void cancelRacingDeliveryNeitherLosesNorRepeatsAndReleasesTheBuffer() {
        List<String> offered = List.of("ns/n0", "ns/n1", "ns/n2", "ns/n3", "ns/n4");
        for (int i = 0; i < RACES; i++) {
            told.clear();
            TestSubscriber<Notification<V1Pod>> subscriber = TestSubscriber.create();
            SubscriberBuffer<V1Pod> buffer = buffer(subscriber);

            RaceTestUtils.race(
                    () -> {
                        for (int n = 0; n < offered.size(); n++) {
                            buffer.offer(added("n" + n), 0);
                        }
                    },
                    subscriber::cancel);

            List<String> received = allReceived(subscriber);
            assertThat(offered.subList(0, received.size())).as("a prefix, in order, without repeats").isEqualTo(received);
            assertThat(subscriber.isTerminated()).isFalse();
            assertThat(subscriber.getProtocolErrors()).isEmpty();
            assertThat(told).as("the owner is told once").containsExactly("terminated ");
            assertThat(buffer.depth()).as("nothing left buffered").isZero();
            assertThat(buffer.scan(Attr.CANCELLED)).isTrue();

            buffer.offer(added("late"), 0);
            assertThat(allReceived(subscriber)).as("nothing after the cancellation returned").isEqualTo(received);
            assertThat(buffer.depth()).isZero();
        }
    }

    @Test
    void requestRacingDeliveryDeliversExactlyTheDemand() {
        for (int i = 0; i < RACES; i++) {
            TestSubscriber<Notification<V1Pod>> subscriber = TestSubscriber.builder().initialRequest(0).build();
            SubscriberBuffer<V1Pod> buffer = buffer(subscriber);

            RaceTestUtils.race(
                    () -> subscriber.request(1),
                    () -> {
                        buffer.offer(added("a"), 0);
                        buffer.offer(added("b"), 0);
                    });

            assertThat(allReceived(subscriber)).containsExactly("ns/a");
            assertThat(buffer.depth()).isEqualTo(1);
            assertThat(buffer.scan(Attr.REQUESTED_FROM_DOWNSTREAM)).isZero();

            subscriber.request(1);
            assertThat(allReceived(subscriber)).containsExactly("ns/a", "ns/b");
            assertThat(buffer.depth()).isZero();
            assertThat(subscriber.getProtocolErrors()).isEmpty();
        }
    }

    @Test
    void handlersCancelledWhileTheInformerDeliversLeaveNoHandlerAndNothingBuffered() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        FakePodServer server = new FakePodServer(time);
        server.put("a", "p1", "0");
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server).name("pods")
                .scheduler(time).deliveryScheduler(Schedulers.immediate()).build();
        informer.start();
        for (int i = 1; i <= RACES / 2; i++) {
            HandlerRegistration<V1Pod> handler = informer.register(SubscriberOptions.defaults().unbounded());
            TestSubscriber<Notification<V1Pod>> subscriber = TestSubscriber.create();
            handler.notifications().subscribe(subscriber);
            String value = Integer.toString(i);

            RaceTestUtils.race(subscriber::cancel, () -> server.put("a", "p1", value));

            assertThat(informer.handlerCount()).isZero();
            assertThat(handler.bufferDepth()).isZero();
            assertThat(subscriber.isTerminated()).isFalse();
            assertThat(subscriber.getProtocolErrors()).isEmpty();
            List<Notification<V1Pod>> received = subscriber.getReceivedOnNext();
            assertThat(received).hasSizeLessThanOrEqualTo(2);
            if (!received.isEmpty()) {
                assertThat(received.get(0)).isInstanceOf(Notification.Added.class);
            }
            if (received.size() == 2) {
                assertThat(received.get(1)).isInstanceOf(Notification.Updated.class);
            }
        }
    }
}
