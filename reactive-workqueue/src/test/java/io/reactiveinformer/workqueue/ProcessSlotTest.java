package io.reactiveinformer.workqueue;

import static io.reactiveinformer.workqueue.Queues.tryGet;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The reusable worker slots of {@link WorkQueue#process}: a finishing worker takes the next ready
 * item itself, slots that hand items to each other do not nest, and a cancellation that meets a
 * slot between two items or before its work started leaves no item behind in processing.
 */
class ProcessSlotTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final WorkQueue<String> queue = Queues.virtual(time);
    private final List<String> started = new CopyOnWriteArrayList<>();

    @Test
    void aFinishingWorkerTakesTheNextReadyItemByPriority() {
        Sinks.Empty<Void> first = Sinks.empty();
        queue.add("a");
        Disposable processing = queue.process(1, item -> {
                    started.add(item);
                    return item.equals("a") ? first.asMono() : Mono.empty();
                })
                .subscribe();
        queue.add("low", Priority.LOW);
        queue.add("normal");
        queue.add("high", Priority.HIGH);

        first.tryEmitEmpty();

        assertThat(started).containsExactly("a", "high", "normal", "low");
        assertThat(queue.size()).isZero();
        processing.dispose();
    }

    @Test
    void anItemReAddedDuringItsOwnInlineWorkRunsAgainAfterIt() {
        AtomicInteger readds = new AtomicInteger();
        queue.add("a");
        queue.add("b");

        Disposable processing = queue.process(1, item -> Mono.fromRunnable(() -> {
                    started.add(item);
                    if (item.equals("a") && readds.getAndIncrement() < 2) {
                        queue.add("a");
                    }
                }))
                .subscribe();

        assertThat(started).containsExactly("a", "b", "a", "a");
        assertThat(queue.size()).isZero();
        processing.dispose();
    }

    @Test
    void slotsThatHandItemsToEachOtherDoNotNestOnTheStack() {
        int rounds = 100_000;
        AtomicInteger processed = new AtomicInteger();
        Set<String> inFlight = new HashSet<>();
        AtomicBoolean overlapped = new AtomicBoolean();

        // both slots park; then each item's work adds the other one, which is delivered at once
        // to the other, parked slot
        StepVerifier.create(queue.process(2, item -> Mono.fromRunnable(() -> {
                            if (!inFlight.add(item)) {
                                overlapped.set(true);
                            }
                            if (processed.incrementAndGet() < rounds) {
                                queue.add(item.equals("a") ? "b" : "a");
                            } else {
                                queue.shutDown();
                            }
                            inFlight.remove(item);
                        })))
                .expectSubscription()
                .then(() -> queue.add("a"))
                .verifyComplete();

        assertThat(processed).hasValue(rounds);
        assertThat(overlapped).isFalse();
    }

    @Test
    void cancellingWhileTheWorkerFunctionRunsPutsTheItemBackUnstarted() {
        AtomicReference<Disposable> processing = new AtomicReference<>();
        AtomicBoolean subscribed = new AtomicBoolean();
        processing.set(queue.process(1, item -> {
                    started.add(item);
                    processing.get().dispose();
                    return Mono.empty().doOnSubscribe(s -> subscribed.set(true));
                })
                .subscribe());

        queue.add("a");

        assertThat(started).containsExactly("a");
        assertThat(subscribed).as("work of a cancelled slot is not started").isFalse();
        assertThat(tryGet(queue)).as("given back, not left in processing").isEqualTo("a");
    }

    @Test
    void cancellingWhileACallableWorkRunsReleasesTheItemAndIgnoresItsLateValue() throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // Callable work is not subscribed: the cancellation has nothing to cancel but the item
        Disposable processing = queue.processWithOutcome(1, item -> Mono.fromCallable(() -> {
                    running.countDown();
                    release.await();
                    return Outcome.requeue();
                }))
                .subscribe();
        Thread adder = new Thread(() -> queue.add("a"), "adder");
        adder.start();
        running.await();

        processing.dispose();

        assertThat(queue.size()).as("given back while its work still runs").isEqualTo(1);
        assertThat(tryGet(queue)).isEqualTo("a");
        release.countDown();
        adder.join();
        assertThat(queue.numRequeues("a")).as("the late requeue outcome is ignored").isZero();
        queue.add("a");
        assertThat(queue.size()).as("still processing by the get, not done by the cancelled slot").isZero();
        queue.done("a");
        assertThat(queue.size()).isEqualTo(1);
    }

    @Test
    void cancellingBetweenTwoItemsFinishesTheFirstAndTakesNoOther() {
        AtomicReference<Disposable> processing = new AtomicReference<>();
        processing.set(queue.process(1, item -> Mono.fromRunnable(() -> started.add(item))
                        // runs after the slot saw the completion, before it takes the next item
                        .doAfterTerminate(() -> processing.get().dispose()))
                .subscribe());
        queue.add("b");
        queue.add("a");

        assertThat(started).containsExactly("b");
        assertThat(queue.size()).isEqualTo(1);
        queue.add("b");
        assertThat(queue.size()).as("b is done, so it can be queued again").isEqualTo(2);
        assertThat(tryGet(queue)).isEqualTo("a");
        assertThat(tryGet(queue)).isEqualTo("b");
    }

    @Test
    void aWorkerFinishingAfterItsSubscriptionGoesOnWithTheNextItem() {
        AtomicBoolean completed = new AtomicBoolean();
        queue.add("a");
        queue.add("b");
        queue.process(1, item -> {
                    started.add(item);
                    return item.equals("a") ? Mono.delay(Duration.ofSeconds(1), time) : Mono.empty();
                })
                .subscribe(null, null, () -> completed.set(true));
        queue.shutDown();

        assertThat(started).containsExactly("a");
        assertThat(completed).isFalse();

        time.advanceTimeBy(Duration.ofSeconds(1));

        assertThat(started).containsExactly("a", "b");
        assertThat(completed).as("shut down and every item done").isTrue();
    }
}
