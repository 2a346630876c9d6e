package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;
import reactor.test.subscriber.TestSubscriber;

/**
 * A handler's lag is the age of its oldest undelivered notification on the informer's clock: it grows
 * while the handler takes nothing, follows the oldest notification still pending as the handler catches
 * up, and is zero once it has everything. The initial state counts from the moment the handler joined.
 */
class HandlerLagTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakePodServer server = new FakePodServer(time);
    private final SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server)
            .scheduler(time).build();

    @Test
    void lagIsTheAgeOfTheOldestUndeliveredNotification() {
        server.put("a", "p0", "1");
        informer.start();
        time.advanceTime();
        assertThat(informer.isSynced()).isTrue();

        HandlerRegistration<V1Pod> handler = informer.register(SubscriberOptions.defaults().unbounded().withName("h"));
        TestSubscriber<Notification<V1Pod>> subscriber = TestSubscriber.builder().initialRequest(0).build();
        handler.notifications().subscribe(subscriber);
        time.advanceTime();
        assertThat(handler.lag()).as("the initial state waits from the join").isZero();

        time.advanceTimeBy(Duration.ofSeconds(3));
        server.put("a", "p1", "1");
        time.advanceTimeBy(Duration.ofSeconds(2));
        assertThat(handler.bufferDepth()).isEqualTo(2);
        assertThat(handler.lag()).isEqualTo(Duration.ofSeconds(5));
        assertThat(informer.handlers()).singleElement().isSameAs(handler);

        subscriber.request(1);
        time.advanceTime();
        assertThat(handler.lag()).as("now the live change is the oldest").isEqualTo(Duration.ofSeconds(2));

        subscriber.request(1);
        time.advanceTime();
        assertThat(handler.lag()).isZero();
        assertThat(handler.bufferDepth()).isZero();
        assertThat(subscriber.getReceivedOnNext()).extracting(Notification::key).containsExactly("a/p0", "a/p1");
        subscriber.cancel();
        time.advanceTime();
        assertThat(informer.handlers()).isEmpty();
    }
}
