package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Per-handler resync periods in virtual time. */
class ResyncTest {

    @BeforeAll
    static void boundVerifications() {
        StepVerifier.setDefaultTimeout(Duration.ofSeconds(20));
    }

    @AfterAll
    static void unboundVerifications() {
        StepVerifier.resetDefaultTimeout();
    }


    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakePodServer server = new FakePodServer(time);

    private static long resyncs(Recorder recorder) {
        return recorder.received().stream()
                .filter(n -> n instanceof Notification.Updated<V1Pod> u && u.isResync())
                .count();
    }

    @Test
    void eachHandlerIsResyncedWhenItsOwnPeriodIsDue() {
        server.put("a", "p1", "1");
        server.put("a", "p2", "1");
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server)
                .scheduler(time).resyncPeriod(Duration.ofSeconds(10)).build();
        Recorder every1s = new Recorder();
        Recorder every3s = new Recorder();
        Recorder never = new Recorder();
        informer.notifications(SubscriberOptions.defaults().withResyncPeriod(Duration.ofMillis(200))).subscribe(every1s);
        informer.notifications(SubscriberOptions.defaults().withResyncPeriod(Duration.ofSeconds(3))).subscribe(every3s);
        informer.notifications().subscribe(never);
        informer.start();
        // 200 ms is raised to the 1 s minimum, and, registered before start, lowers the check period.
        assertThat(informer.resyncCheckPeriod()).isEqualTo(Duration.ofSeconds(1));

        time.advanceTimeBy(Duration.ofMillis(999));
        assertThat(resyncs(every1s)).isZero();
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(resyncs(every1s)).isEqualTo(2);
        assertThat(resyncs(every3s)).isZero();

        time.advanceTimeBy(Duration.ofSeconds(2));
        assertThat(resyncs(every1s)).isEqualTo(6);
        assertThat(resyncs(every3s)).isEqualTo(2);
        assertThat(resyncs(never)).isZero();

        time.advanceTimeBy(Duration.ofSeconds(3));
        assertThat(resyncs(every1s)).isEqualTo(12);
        assertThat(resyncs(every3s)).isEqualTo(4);
        assertThat(never.count()).isEqualTo(2);
    }

    @Test
    void aHandlerAddedAfterStartIsRaisedToTheCheckPeriod() {
        server.put("a", "p1", "1");
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server)
                .scheduler(time).resyncPeriod(Duration.ofSeconds(5)).build();
        informer.start();
        HandlerRegistration<V1Pod> handler = informer.register(
                SubscriberOptions.defaults().withResyncPeriod(Duration.ofSeconds(2)));
        Recorder recorder = new Recorder();
        handler.notifications().subscribe(recorder);
        assertThat(handler.resyncPeriod()).isEqualTo(Duration.ofSeconds(5));
        assertThat(informer.resyncCheckPeriod()).isEqualTo(Duration.ofSeconds(5));

        time.advanceTimeBy(Duration.ofSeconds(4));
        assertThat(resyncs(recorder)).isZero();
        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(resyncs(recorder)).isEqualTo(1);
    }

    @Test
    void aRelistAtTheSameResourceVersionGoesOnlyToHandlersWhoseResyncIsDue() {
        server.put("a", "same", "1");
        server.put("a", "changed", "1");
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server).scheduler(time).build();
        Recorder due = new Recorder();
        Recorder notDue = new Recorder();
        informer.notifications(SubscriberOptions.defaults().withResyncPeriod(Duration.ofSeconds(1))).subscribe(due);
        informer.notifications(SubscriberOptions.defaults().withResyncPeriod(Duration.ofSeconds(60))).subscribe(notDue);
        informer.start();
        time.advanceTimeBy(Duration.ofSeconds(1));
        int dueBefore = due.count();
        int notDueBefore = notDue.count();

        server.put("a", "changed", "2", true);
        server.breakWatches();
        time.advanceTimeBy(Duration.ofMinutes(1).minusSeconds(2));

        List<Notification<V1Pod>> toNotDue = notDue.received().subList(notDueBefore, notDue.count());
        assertThat(toNotDue).singleElement().isInstanceOfSatisfying(Notification.Updated.class, u -> {
            assertThat(u.key()).isEqualTo("a/changed");
            assertThat(u.isResync()).isFalse();
        });
        assertThat(due.received().subList(dueBefore, due.count()))
                .anySatisfy(n -> assertThat(n).isInstanceOfSatisfying(Notification.Updated.class, u -> {
                    assertThat(u.key()).isEqualTo("a/same");
                    assertThat(u.isResync()).isTrue();
                }));
    }
}
