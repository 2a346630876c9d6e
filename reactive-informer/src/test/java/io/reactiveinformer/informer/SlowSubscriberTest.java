package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * One handler 100 times slower than the event rate (1 event per ms, 1 notification per 100 ms), next to a
 * fast one, in virtual time.
 */
class SlowSubscriberTest {

    private static final int KEYS = 10;
    private static final int EVENTS = 2000;

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakePodServer server = new FakePodServer(time);
    private final SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server)
            .scheduler(time).build();

    /** Requests one notification, then the next 100 ms after each one. */
    private final class Slow extends BaseSubscriber<Notification<V1Pod>> {
        final Recorder recorder = new Recorder();
        final AtomicReference<Throwable> error = new AtomicReference<>();

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            request(1);
        }

        @Override
        protected void hookOnNext(Notification<V1Pod> n) {
            recorder.accept(n);
            Mono.delay(Duration.ofMillis(100), time).subscribe(t -> request(1));
        }

        @Override
        protected void hookOnError(Throwable throwable) {
            error.set(throwable);
        }
    }

    private Disposable produce() {
        for (int k = 0; k < KEYS; k++) {
            server.put("ns", "p" + k, "0");
        }
        informer.start();
        return Flux.interval(Duration.ofMillis(1), time).take(EVENTS)
                .subscribe(i -> server.put("ns", "p" + (i % KEYS), Long.toString(i + 1)));
    }

    @Test
    void coalesceKeepsTheSlowBufferWithinTheKeysWhileTheFastOneKeepsUp() {
        HandlerRegistration<V1Pod> slowHandler = informer.register(SubscriberOptions.defaults().withName("slow"));
        Slow slow = new Slow();
        slowHandler.notifications().subscribe(slow);
        Recorder fast = new Recorder();
        informer.notifications().subscribe(fast);
        produce();

        time.advanceTimeBy(Duration.ofMillis(EVENTS));
        // The fast handler has everything (initial adds + every event); the slow one has about 20.
        assertThat(fast.count()).isEqualTo(KEYS + EVENTS);
        assertThat(fast.view()).isEqualTo(Recorder.values(server.snapshot()));
        assertThat(slow.recorder.count()).isLessThan(EVENTS / 50);
        assertThat(slowHandler.bufferDepth()).isBetween(1, KEYS);
        assertThat(slowHandler.maxBufferDepth()).isLessThanOrEqualTo(KEYS);

        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(slowHandler.bufferDepth()).isZero();
        assertThat(slow.recorder.view()).isEqualTo(Recorder.values(server.snapshot()));
        StepVerifier.create(slowHandler.hasSynced()).expectComplete().verify(Duration.ofSeconds(5));
    }

    @Test
    void unboundedGrowsWithTheBacklog() {
        HandlerRegistration<V1Pod> slowHandler = informer.register(SubscriberOptions.defaults().unbounded());
        Slow slow = new Slow();
        slowHandler.notifications().subscribe(slow);
        produce();
        time.advanceTimeBy(Duration.ofMillis(EVENTS));
        assertThat(slowHandler.bufferDepth()).isGreaterThan(EVENTS * 9 / 10);
        time.advanceTimeBy(Duration.ofMinutes(5));
        assertThat(slow.recorder.count()).isEqualTo(KEYS + EVENTS);
        assertThat(slow.recorder.view()).isEqualTo(Recorder.values(server.snapshot()));
    }

    @Test
    void boundedOverflowEndsOnlyThatSubscriber() {
        HandlerRegistration<V1Pod> slowHandler = informer.register(SubscriberOptions.defaults().bounded(50));
        Slow slow = new Slow();
        slowHandler.notifications().subscribe(slow);
        Recorder fast = new Recorder();
        informer.notifications(SubscriberOptions.defaults().bounded(50)).subscribe(fast);
        produce();
        time.advanceTimeBy(Duration.ofMillis(EVENTS));

        assertThat(slow.error.get()).matches(Exceptions::isOverflow).hasMessageContaining("capacity");
        assertThat(fast.count()).isEqualTo(KEYS + EVENTS);
        assertThat(informer.handlerCount()).isEqualTo(1);
        assertThat(informer.indexer().size()).isEqualTo(KEYS);
    }
}
