package io.reactiveinformer.workqueue;

import static io.reactiveinformer.workqueue.Queues.tryGet;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ProcessTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final WorkQueue<String> queue =
            Queues.virtual(time, RateLimiter.exponential(Duration.ofMillis(5), Duration.ofSeconds(1000)));

    /** Work that finishes only when the test says so. */
    private final Map<String, List<Sinks.One<Outcome>>> running = new LinkedHashMap<>();
    private final List<String> started = new CopyOnWriteArrayList<>();

    private Mono<Outcome> controlled(String item) {
        Sinks.One<Outcome> sink = Sinks.one();
        synchronized (running) {
            running.computeIfAbsent(item, k -> new ArrayList<>()).add(sink);
        }
        started.add(item);
        return sink.asMono();
    }

    private void finish(String item, Outcome outcome) {
        Sinks.One<Outcome> sink;
        synchronized (running) {
            sink = running.get(item).remove(0);
        }
        sink.tryEmitValue(outcome);
    }

    private void fail(String item) {
        Sinks.One<Outcome> sink;
        synchronized (running) {
            sink = running.get(item).remove(0);
        }
        sink.tryEmitError(new IllegalStateException("boom " + item));
    }

    @Test
    void neverMoreThanConcurrencyInFlightAndItemsWaitInTheQueue() {
        for (String item : List.of("a", "b", "c", "d", "e")) {
            queue.add(item);
        }
        Disposable processing = queue.processWithOutcome(2, this::controlled).subscribe();

        assertThat(started).containsExactly("a", "b");
        assertThat(queue.size()).as("not pulled before a worker is free").isEqualTo(3);

        finish("a", Outcome.forget());
        assertThat(started).containsExactly("a", "b", "c");
        assertThat(queue.size()).isEqualTo(2);

        finish("b", Outcome.forget());
        finish("c", Outcome.forget());
        assertThat(started).containsExactly("a", "b", "c", "d", "e");
        assertThat(queue.size()).isZero();
        processing.dispose();
    }

    @Test
    void anItemIsNeverProcessedConcurrentlyButReAddsAreNotLost() {
        queue.add("a");
        Disposable processing = queue.processWithOutcome(4, this::controlled).subscribe();
        assertThat(started).containsExactly("a");

        queue.add("a");
        queue.add("a");
        assertThat(started).as("not handed to a second worker").containsExactly("a");

        finish("a", Outcome.forget());
        assertThat(started).as("the re-add runs after done, once").containsExactly("a", "a");
        finish("a", Outcome.forget());
        assertThat(started).hasSize(2);
        processing.dispose();
    }

    @Test
    void anErrorRequeuesWithRateLimitingAndSuccessForgets() {
        queue.add("a");
        Disposable processing = queue.processWithOutcome(1, this::controlled).subscribe();

        fail("a");
        assertThat(queue.numRequeues("a")).isEqualTo(1);
        time.advanceTimeBy(Duration.ofMillis(4));
        assertThat(started).hasSize(1);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(started).hasSize(2);

        fail("a");
        time.advanceTimeBy(Duration.ofMillis(9));
        assertThat(started).hasSize(2);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(started).hasSize(3);
        assertThat(queue.numRequeues("a")).isEqualTo(2);

        finish("a", Outcome.forget());
        assertThat(queue.numRequeues("a")).isZero();
        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(started).hasSize(3);
        processing.dispose();
    }

    @Test
    void processForgetsOnCompletionAndRequeuesOnError() {
        AtomicInteger attempts = new AtomicInteger();
        queue.add("a");
        Disposable processing = queue.process(1, item -> attempts.incrementAndGet() < 3
                        ? Mono.error(new IllegalStateException("not yet"))
                        : Mono.just("ignored value"))
                .subscribe();

        time.advanceTimeBy(Duration.ofMillis(5));
        assertThat(queue.numRequeues("a")).isEqualTo(2);
        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(attempts).hasValue(3);
        assertThat(queue.numRequeues("a")).isZero();
        processing.dispose();
    }

    @Test
    void callableWorkIsSettledAsItsValueOrErrorSays() {
        // Mono.fromCallable and Mono.just are Callable: taken on the slot's thread, not subscribed
        outcomesAndErrorsAreHonoured(work -> work);
    }

    @Test
    void subscribedWorkIsSettledAsItsSignalsSay() {
        outcomesAndErrorsAreHonoured(Mono::hide);
    }

    private void outcomesAndErrorsAreHonoured(UnaryOperator<Mono<Outcome>> shape) {
        AtomicInteger attempts = new AtomicInteger();
        queue.add("a");
        Disposable processing = queue.processWithOutcome(1, item -> shape.apply(switch (attempts.incrementAndGet()) {
                    case 1 -> Mono.fromCallable(() -> {
                        throw new IOException("checked, not wrapped");
                    });
                    case 2 -> Mono.just(Outcome.requeue());
                    case 3 -> Mono.just(Outcome.requeueAfter(Duration.ofSeconds(7)));
                    default -> Mono.just(Outcome.forget());
                }))
                .subscribe();

        assertThat(attempts).hasValue(1);
        assertThat(queue.numRequeues("a")).as("the error requeued with rate limiting").isEqualTo(1);
        time.advanceTimeBy(Duration.ofMillis(5));
        assertThat(attempts).hasValue(2);
        assertThat(queue.numRequeues("a")).as("requeue keeps the history").isEqualTo(2);
        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(attempts).hasValue(3);
        assertThat(queue.numRequeues("a")).as("requeueAfter forgets").isZero();
        time.advanceTimeBy(Duration.ofMillis(6_999));
        assertThat(attempts).hasValue(3);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(attempts).hasValue(4);
        time.advanceTimeBy(Duration.ofSeconds(60));
        assertThat(attempts).as("forgotten and done: nothing follows").hasValue(4);
        assertThat(queue.size()).isZero();
        processing.dispose();
    }

    @Test
    void requeueAfterNoDelayGoesThroughTheRateLimiterInsteadOfLoopingAtOnce() {
        assertThat(Outcome.requeueAfter(Duration.ZERO)).isSameAs(Outcome.requeue());
        assertThat(Outcome.requeueAfter(Duration.ofSeconds(-1))).isSameAs(Outcome.requeue());
        AtomicInteger attempts = new AtomicInteger();
        queue.add("a");
        Disposable processing = queue.processWithOutcome(1, item -> Mono.just(
                        attempts.incrementAndGet() > 1_000 ? Outcome.forget() : Outcome.requeueAfter(Duration.ZERO)))
                .subscribe();

        assertThat(attempts).as("not again at once").hasValue(1);
        time.advanceTimeBy(Duration.ofMillis(5));
        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(attempts).as("after 5 ms, then 10 ms").hasValue(3);
        assertThat(queue.numRequeues("a")).as("the history kept, so the delay keeps growing").isEqualTo(3);
        processing.dispose();
    }

    @Test
    void aThrowingOrNullReturningWorkerCountsAsAnError() {
        queue.add("throws");
        queue.add("null");
        Disposable processing = queue.process(2, item -> {
                    if (item.equals("throws")) {
                        throw new IllegalArgumentException("bad");
                    }
                    return null;
                })
                .subscribe();

        assertThat(queue.numRequeues("throws")).isEqualTo(1);
        assertThat(queue.numRequeues("null")).isEqualTo(1);
        processing.dispose();
    }

    @Test
    void aPublisherThrowingOnSubscribeCountsAsAnErrorAndProcessingGoesOn() {
        queue.add("a");
        queue.add("b");
        List<String> processed = new CopyOnWriteArrayList<>();
        Publisher<Object> broken = subscriber -> {
            throw new IllegalStateException("spec violation");
        };
        Disposable processing = queue.process(
                        1, item -> item.equals("a") ? broken : Mono.fromRunnable(() -> processed.add(item)))
                .subscribe();

        assertThat(queue.numRequeues("a")).isEqualTo(1);
        assertThat(processed).containsExactly("b");
        processing.dispose();
    }

    @Test
    void requeueKeepsTheFailureHistory() {
        queue.add("a");
        Disposable processing = queue.processWithOutcome(1, this::controlled).subscribe();

        finish("a", Outcome.requeue());
        time.advanceTimeBy(Duration.ofMillis(5));
        assertThat(started).hasSize(2);
        finish("a", Outcome.requeue());
        time.advanceTimeBy(Duration.ofMillis(9));
        assertThat(started).hasSize(2);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(started).hasSize(3);
        assertThat(queue.numRequeues("a")).isEqualTo(2);
        processing.dispose();
    }

    @Test
    void requeueAfterForgetsAndWaitsExactly() {
        queue.addRateLimited("a");
        time.advanceTimeBy(Duration.ofMillis(5));
        Disposable processing = queue.processWithOutcome(1, this::controlled).subscribe();
        assertThat(queue.numRequeues("a")).isEqualTo(1);

        finish("a", Outcome.requeueAfter(Duration.ofSeconds(30)));
        assertThat(queue.numRequeues("a")).isZero();
        time.advanceTimeBy(Duration.ofMillis(29_999));
        assertThat(started).hasSize(1);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(started).hasSize(2);
        processing.dispose();
    }

    @Test
    void aRetryKeepsThePriorityItWasHandedOutWith() {
        queue.add("urgent", Priority.HIGH);
        Disposable processing = queue.processWithOutcome(1, this::controlled).subscribe();
        queue.add("other");
        queue.add("other2");

        fail("urgent");
        // "other" started when "urgent" failed; the retry becomes ready while "other" runs
        time.advanceTimeBy(Duration.ofMillis(5));
        finish("other", Outcome.forget());

        assertThat(started).containsExactly("urgent", "other", "urgent");
        processing.dispose();
    }

    @Test
    void completesWhenTheQueueIsShutDownAndItsItemsAreDone() {
        queue.add("a");
        StepVerifier.create(queue.processWithOutcome(2, this::controlled))
                .expectSubscription()
                .then(queue::shutDown)
                .expectNoEvent(Duration.ZERO)
                .then(() -> finish("a", Outcome.forget()))
                .verifyComplete();
    }

    @Test
    void cancellingPutsRunningItemsBackUnfinished() {
        AtomicInteger cancelled = new AtomicInteger();
        queue.add("a");
        queue.add("b");
        Disposable processing = queue.process(1, item -> Mono.never().doOnCancel(cancelled::incrementAndGet))
                .subscribe();
        assertThat(queue.size()).isEqualTo(1);

        processing.dispose();

        assertThat(cancelled).hasValue(1);
        assertThat(queue.size()).isEqualTo(2);
        assertThat(tryGet(queue)).isEqualTo("b");
        assertThat(tryGet(queue)).isEqualTo("a");
    }

    @Test
    void cancellingAnIdleProcessorUnparksItsDemands() {
        Disposable processing = queue.process(3, item -> Mono.empty()).subscribe();
        processing.dispose();

        queue.add("a");

        assertThat(queue.size()).isEqualTo(1);
    }

    @Test
    void severalProcessorsShareTheQueueWithoutProcessingAnItemTwice() {
        queue.add("a");
        Disposable first = queue.processWithOutcome(1, this::controlled).subscribe();
        Disposable second = queue.processWithOutcome(1, this::controlled).subscribe();
        queue.add("a");
        queue.add("b");

        assertThat(started).containsExactly("a", "b");
        finish("a", Outcome.forget());
        assertThat(started).containsExactly("a", "b", "a");
        first.dispose();
        second.dispose();
    }

    @Test
    void theWorkSeesTheSubscribersContext() {
        List<String> seen = new CopyOnWriteArrayList<>();
        queue.add("a");
        Disposable processing = queue.process(1, item -> Mono.deferContextual(ctx -> {
                            seen.add(item + "@" + ctx.get("tenant"));
                            return Mono.empty();
                        }))
                .contextWrite(ctx -> ctx.put("tenant", "t1"))
                .subscribe();

        assertThat(seen).containsExactly("a@t1");
        processing.dispose();
    }

    @Test
    void synchronousWorkDoesNotRecurse() {
        for (int i = 0; i < 100_000; i++) {
            queue.add("item" + i);
        }
        AtomicInteger processed = new AtomicInteger();

        StepVerifier.create(queue.process(1, item -> Mono.fromRunnable(processed::incrementAndGet)))
                .expectSubscription()
                .then(queue::shutDown)
                .verifyComplete();
        assertThat(processed).hasValue(100_000);
    }
}
