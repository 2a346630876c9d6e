package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The informer's boundaries with the code around it, on real threads: the subscribing thread never
 * waits for the apply loop, observers of the informer's own streams never run on its threads, and a
 * scheduler that refuses work stops the informer loudly instead of silently freezing it.
 */
class InformerBoundaryTest {

    private static final Logger log = LoggerFactory.getLogger(InformerBoundaryTest.class);

    /** A liveness bound, not a speed claim. */
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final Scheduler informerScheduler = Schedulers.newParallel("informer", 2);
    private final Scheduler blocking = Schedulers.newBoundedElastic(8, 10_000, "observers");
    private final FakePodServer server = new FakePodServer();
    private Disposable running;

    @AfterEach
    void stop() {
        if (running != null) {
            running.dispose();
        }
        informerScheduler.dispose();
        blocking.dispose();
    }

    /**
     * Before issue 30 a subscriber joined under the lock the apply loop holds while it applies an entry:
     * a subscribe on a network event loop waited for a whole relist. Here the apply loop is held inside
     * an entry (an index function waits on a latch) and a subscribe must still return at once; once the
     * entry is applied the new subscriber sees each object exactly once, then the later change.
     */
    @Test
    void subscribingNeverWaitsForTheApplyLoop() throws Exception {
        CountDownLatch applying = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // The apply loop blocks in this test, so it runs on threads that may block.
        Scheduler delivery = Schedulers.newBoundedElastic(4, 10_000, "delivery");
        try {
            SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server)
                    .scheduler(informerScheduler).deliveryScheduler(delivery).blockingScheduler(blocking)
                    .indexers(Map.of("hold", pod -> {
                        if ("hold".equals(FakePodServer.valueOf(pod))) {
                            applying.countDown();
                            await(release);
                        }
                        return List.of();
                    }))
                    .build();
            for (int i = 0; i < 100; i++) {
                server.put("a", "p" + i, "1");
            }
            running = informer.start();
            StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);
            server.put("a", "p0", "hold");
            assertThat(applying.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();

            Recorder late = new Recorder();
            CompletableFuture<Disposable> subscribed = CompletableFuture.supplyAsync(
                    () -> informer.notifications().subscribe(late));
            // The old seam lock made this wait until release: a failure here is that wait.
            subscribed.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertThat(late.count()).as("nothing is delivered before the entry being applied is done").isZero();
            assertThat(informer.handlerCount()).isEqualTo(1);

            release.countDown();
            server.put("a", "p1", "2");
            assertThat(late.awaitCount(101)).isTrue();
            List<Notification<V1Pod>> received = late.received();
            assertThat(received.subList(0, 100)).allSatisfy(n -> assertThat(n).isInstanceOf(Notification.Added.class))
                    .extracting(Notification::key).doesNotHaveDuplicates();
            assertThat(late.view()).containsEntry("a/p0", "hold").containsEntry("a/p1", "2").hasSize(100);
        } finally {
            release.countDown();
            delivery.dispose();
        }
    }

    /**
     * Issue 30's naive observer: it logs and sleeps 50 ms per element. Wired before start to an informer
     * whose index function fails for every object (so the failures and health changes come by the
     * thousand), before issue 30 it ran on the apply loop and the informer took 2,000 × 50 ms per stream
     * to sync. Now it runs on the blocking scheduler, from its own buffer: sync, and a fast handler beside
     * it, wait for neither; the fast handler gets every object and every later change.
     */
    @Test
    void slowObserversOfTheInformersOwnStreamsDelayNeitherSyncNorHandlers() throws Exception {
        int objects = 2_000;
        for (int i = 0; i < objects; i++) {
            server.put("a", "p" + i, "1");
        }
        Scheduler delivery = Schedulers.newParallel("delivery", 2);
        try {
            SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server)
                    .scheduler(informerScheduler).deliveryScheduler(delivery).blockingScheduler(blocking)
                    .indexers(Map.of("broken", pod -> {
                        throw new IllegalStateException("index function bug");
                    }))
                    .build();
            Set<String> observerThreads = ConcurrentHashMap.newKeySet();
            AtomicInteger errorsSeen = new AtomicInteger();
            AtomicInteger healthSeen = new AtomicInteger();
            informer.userCodeErrors().subscribe(error -> {
                observerThreads.add(Thread.currentThread().getName());
                errorsSeen.incrementAndGet();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            });
            informer.healthChanges().subscribe(health -> {
                observerThreads.add(Thread.currentThread().getName());
                healthSeen.incrementAndGet();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            });
            Recorder fast = new Recorder();
            informer.notifications(SubscriberOptions.defaults().unbounded()).subscribe(fast);

            long start = System.nanoTime();
            running = informer.start();
            // Inline observers would need 2,000 × 50 ms for the errors alone.
            StepVerifier.create(informer.hasSynced()).expectComplete().verify(Duration.ofSeconds(20));
            log.info("synced {} objects in {} ms beside observers sleeping 50 ms per element",
                    objects, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            long written = System.nanoTime();
            for (int i = 0; i < 50; i++) {
                server.put("a", "p" + i, "2");
            }
            assertThat(fast.awaitCount(objects + 50)).isTrue();
            log.info("the fast handler had all 50 later changes {} ms after they were written",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - written));
            assertThat(fast.view()).hasSize(objects).containsEntry("a/p49", "2").containsEntry("a/p50", "1");
            assertThat(informer.health().userCodeErrors()).isGreaterThanOrEqualTo(objects);
            assertThat(errorsSeen.get()).isPositive();
            assertThat(healthSeen.get()).isPositive();
            assertThat(observerThreads).allSatisfy(name -> assertThat(name).startsWith("observers-"));
        } finally {
            delivery.dispose();
        }
    }

    /**
     * A delivery scheduler disposed under a running informer: before issue 30 the rejected drain was
     * swallowed, the cache froze and nothing said so. Now the informer stops, its health says why, and
     * its subscriber is ended with the rejection.
     */
    @Test
    void aDeliverySchedulerThatRejectsWorkStopsTheInformerAndSaysWhy() throws InterruptedException {
        Scheduler delivery = Schedulers.newParallel("delivery", 1);
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server)
                .scheduler(informerScheduler).deliveryScheduler(delivery).blockingScheduler(blocking).build();
        server.put("a", "p0", "1");
        AtomicReference<Throwable> subscriberError = new AtomicReference<>();
        CountDownLatch ended = new CountDownLatch(1);
        informer.notifications().subscribe(n -> { }, e -> {
            subscriberError.set(e);
            ended.countDown();
        }, ended::countDown);
        running = informer.start();
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);

        delivery.dispose();
        server.put("a", "p1", "1");

        StepVerifier.create(informer.healthChanges().filter(InformerHealth::stopped).next())
                .expectNextCount(1).expectComplete().verify(DEADLINE);
        assertThat(informer.isStopped()).isTrue();
        assertThat(informer.health().stopped()).isTrue();
        assertThat(informer.health().healthy()).isFalse();
        assertThat(informer.health().stopCause()).isInstanceOf(RejectedExecutionException.class);
        assertThat(ended.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(subscriberError.get()).isInstanceOf(RejectedExecutionException.class);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
