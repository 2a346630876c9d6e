package io.reactiveinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Many producer threads against several workers on real schedulers. Never concurrent: no key is in
 * two workers at once and never more than {@code concurrency} run. Never lost: every key is
 * processed after its last add.
 */
class ConcurrencyTest {

    private static final int PRODUCERS = 8;
    private static final int ADDS_PER_PRODUCER = 5_000;
    private static final int KEYS = 64;
    private static final int WORKERS = 4;

    /** Per key: how many adds were made, and the add count that the latest processing saw. */
    private final AtomicLongArray added = new AtomicLongArray(KEYS);
    private final AtomicLongArray processedUpTo = new AtomicLongArray(KEYS);
    private final AtomicBoolean[] inProgress = new AtomicBoolean[KEYS];
    private final AtomicInteger active = new AtomicInteger();
    private final AtomicInteger maxActive = new AtomicInteger();
    private final List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());

    ConcurrencyTest() {
        for (int i = 0; i < KEYS; i++) {
            inProgress[i] = new AtomicBoolean();
        }
    }

    private Mono<Void> work(Integer key) {
        return Mono.fromRunnable(() -> {
                    if (!inProgress[key].compareAndSet(false, true)) {
                        violations.add("key " + key + " processed concurrently");
                    }
                    int now = active.incrementAndGet();
                    maxActive.accumulateAndGet(now, Math::max);
                    // an add made before this point is covered by this processing
                    processedUpTo.accumulateAndGet(key, added.get(key), Math::max);
                })
                .publishOn(Schedulers.parallel())
                .then(Mono.fromRunnable(() -> {
                    active.decrementAndGet();
                    inProgress[key].set(false);
                }));
    }

    private void produce(WorkQueue<Integer> queue) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(PRODUCERS);
        for (int p = 0; p < PRODUCERS; p++) {
            Thread producer = new Thread(() -> {
                try {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < ADDS_PER_PRODUCER; i++) {
                        int key = random.nextInt(KEYS);
                        added.incrementAndGet(key);
                        if (random.nextInt(8) == 0) {
                            queue.add(key, Priority.of(random.nextInt(3)));
                        } else {
                            queue.add(key);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    finished.countDown();
                }
            });
            producer.start();
        }
        start.countDown();
        assertThat(finished.await(60, TimeUnit.SECONDS)).isTrue();
    }

    private void assertNeverConcurrentNeverLost() {
        assertThat(violations).isEmpty();
        assertThat(maxActive.get()).isLessThanOrEqualTo(WORKERS);
        for (int key = 0; key < KEYS; key++) {
            assertThat(processedUpTo.get(key)).as("key %d processed after its last add", key).isEqualTo(added.get(key));
        }
    }

    @RepeatedTest(3)
    void processWithManyProducers() throws InterruptedException {
        WorkQueue<Integer> queue = WorkQueue.<Integer>builder().build();
        CountDownLatch processorDone = new CountDownLatch(1);
        queue.process(WORKERS, this::work).subscribe(null, e -> violations.add(e.toString()), processorDone::countDown);

        produce(queue);

        queue.shutDownWithDrain().block(Duration.ofSeconds(60));
        assertThat(processorDone.await(60, TimeUnit.SECONDS)).isTrue();
        assertNeverConcurrentNeverLost();
    }

    @Test
    void getAndDoneWithManyProducers() throws InterruptedException {
        WorkQueue<Integer> queue = WorkQueue.<Integer>builder().build();
        CountDownLatch consumersDone = new CountDownLatch(WORKERS);
        AtomicLong handedOut = new AtomicLong();
        for (int w = 0; w < WORKERS; w++) {
            consume(queue, handedOut).subscribe(null, e -> violations.add(e.toString()), consumersDone::countDown);
        }

        produce(queue);

        queue.shutDownWithDrain().block(Duration.ofSeconds(60));
        assertThat(consumersDone.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(handedOut.get()).isPositive();
        assertNeverConcurrentNeverLost();
    }

    /** A consumer that drives the queue itself: get, work, done, until the queue ends. */
    private Mono<Void> consume(WorkQueue<Integer> queue, AtomicLong handedOut) {
        return queue.get()
                .flatMap(key -> {
                    handedOut.incrementAndGet();
                    return work(key).doFinally(signal -> queue.done(key)).thenReturn(true);
                })
                .flatMap(more -> Mono.defer(() -> consume(queue, handedOut)))
                .then();
    }

    @Test
    void delayedAddsFromManyThreadsAreAllDelivered() throws InterruptedException {
        WorkQueue<Integer> queue = WorkQueue.<Integer>builder().build();
        int items = 2_000;
        CountDownLatch all = new CountDownLatch(items);
        ConcurrentHashMap<Integer, Boolean> seen = new ConcurrentHashMap<>();
        queue.process(WORKERS, key -> Mono.fromRunnable(() -> {
                    if (seen.putIfAbsent(key, true) == null) {
                        all.countDown();
                    }
                }))
                .subscribe();

        Flux.range(0, items)
                .parallel(PRODUCERS)
                .runOn(Schedulers.parallel())
                .doOnNext(i -> queue.addAfter(i, Duration.ofMillis(i % 50)))
                .sequential()
                .blockLast(Duration.ofSeconds(60));

        assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
        queue.shutDown();
    }
}
