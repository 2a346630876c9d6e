package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;

class DeadlinesTest {

    @Test
    void theTriggerCancelsTheSourceBeforeTheErrorIsSignalled() {
        TestPublisher<String> source = TestPublisher.create();
        AtomicBoolean cancelledBeforeError = new AtomicBoolean();
        StepVerifier.withVirtualTime(() -> Deadlines.failWhen(source.flux(), Mono.delay(Duration.ofSeconds(5)),
                        () -> {
                            cancelledBeforeError.set(source.wasCancelled());
                            return new IllegalStateException("too late");
                        }))
                .then(() -> source.next("a"))
                .expectNext("a")
                .thenAwait(Duration.ofSeconds(5))
                .expectErrorMessage("too late")
                .verify();
        assertThat(cancelledBeforeError).isTrue();
    }

    @Test
    void aSourceThatEndsFirstCompletesAndCancelsTheTrigger() {
        TestPublisher<Long> trigger = TestPublisher.create();
        StepVerifier.create(Deadlines.failWhen(Flux.just("a", "b"), trigger, () -> new IllegalStateException("unused")))
                .expectNext("a", "b")
                .verifyComplete();
        trigger.assertCancelled();
    }
}
