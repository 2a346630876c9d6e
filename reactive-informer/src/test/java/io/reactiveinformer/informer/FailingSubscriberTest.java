package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** A handler that throws is removed alone; the informer and the other handlers go on. */
class FailingSubscriberTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakePodServer server = new FakePodServer(time);

    @Test
    void aThrowingSubscriberIsCancelledAloneAndTheOthersGoOn() {
        server.put("a", "p1", "1");
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server).name("pods")
                .scheduler(time).build();
        Recorder healthy = new Recorder();
        informer.notifications().subscribe(healthy);
        AtomicReference<Throwable> rawError = new AtomicReference<>();
        // A CoreSubscriber is called directly (a plain Subscriber would be wrapped by Reactor's StrictSubscriber,
        // which swallows the error that follows a throwing onNext).
        informer.notifications().subscribe(new CoreSubscriber<>() {
            @Override
            public void onSubscribe(Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Notification<V1Pod> n) {
                if (n instanceof Notification.Updated) {
                    throw new IllegalStateException("handler bug");
                }
            }

            @Override
            public void onError(Throwable t) {
                rawError.set(t);
            }

            @Override
            public void onComplete() {
            }
        });
        AtomicReference<Throwable> chainError = new AtomicReference<>();
        informer.notifications()
                .doOnNext(n -> {
                    if (n instanceof Notification.Deleted) {
                        throw new IllegalArgumentException("another bug");
                    }
                })
                .subscribe(n -> { }, chainError::set);
        informer.start();
        assertThat(informer.handlerCount()).isEqualTo(3);

        server.put("a", "p1", "2");
        assertThat(rawError.get()).hasMessageContaining("handler bug");
        assertThat(informer.handlerCount()).isEqualTo(2);

        server.delete("a/p1");
        assertThat(chainError.get()).hasMessage("another bug");
        assertThat(informer.handlerCount()).isEqualTo(1);

        server.put("a", "p2", "1");
        assertThat(healthy.received()).hasSize(4);
        assertThat(informer.indexer().listKeys()).containsExactly("a/p2");
        StepVerifier.create(informer.notifications().take(1)).expectNextCount(1).expectComplete()
                .verify(Duration.ofSeconds(10));
    }
}
