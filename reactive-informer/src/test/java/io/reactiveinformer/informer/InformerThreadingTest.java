package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** Which thread runs what, on real schedulers: the apply loop off the producer, blocking handlers apart. */
class InformerThreadingTest {

    private final Scheduler informerScheduler = Schedulers.newParallel("informer", 2);
    private final Scheduler delivery = Schedulers.newParallel("delivery", 2);
    private final Scheduler blocking = Schedulers.newBoundedElastic(4, 1000, "blocking");
    private final FakePodServer server = new FakePodServer();
    private Disposable running;

    @AfterEach
    void stop() {
        if (running != null) {
            running.dispose();
        }
        informerScheduler.dispose();
        delivery.dispose();
        blocking.dispose();
    }

    private SharedIndexInformer.Builder<V1Pod> builder() {
        return SharedIndexInformer.builder(V1Pod.class, server).name("pods").scheduler(informerScheduler)
                .deliveryScheduler(delivery).blockingScheduler(blocking);
    }

    @Test
    void theCacheIsAppliedOnTheDeliverySchedulerNeverOnThePushingThread() throws InterruptedException {
        Set<String> applyThreads = ConcurrentHashMap.newKeySet();
        SharedIndexInformer<V1Pod> informer = builder()
                .indexers(Map.of("thread", pod -> {
                    applyThreads.add(Thread.currentThread().getName());
                    return List.of();
                }))
                .build();
        Recorder handler = new Recorder();
        informer.notifications().subscribe(handler);
        running = informer.start();
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(Duration.ofSeconds(10));

        // This test thread pushes: the fake server emits watch events on the caller's thread.
        for (int i = 0; i < 50; i++) {
            server.put("a", "p" + i, Integer.toString(i));
        }

        assertThat(handler.awaitCount(50)).isTrue();
        assertThat(applyThreads).isNotEmpty().allSatisfy(name -> assertThat(name).startsWith("delivery-"));
    }

    @Test
    void aDeclaredBlockingHandlerRunsOnTheBlockingSchedulerAndTheOthersOnTheDeliveryScheduler()
            throws InterruptedException {
        SharedIndexInformer<V1Pod> informer = builder().build();
        Set<String> blockingThreads = ConcurrentHashMap.newKeySet();
        Set<String> fastThreads = ConcurrentHashMap.newKeySet();
        Recorder blockingView = new Recorder();
        Recorder fastView = new Recorder();
        informer.notifications(SubscriberOptions.defaults().unbounded().blocking()).subscribe(n -> {
            blockingThreads.add(Thread.currentThread().getName());
            // A blocking call: BlockHound fails it anywhere but on a thread meant for blocking.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            blockingView.accept(n);
        });
        informer.notifications().subscribe(n -> {
            fastThreads.add(Thread.currentThread().getName());
            fastView.accept(n);
        });
        running = informer.start();
        for (int i = 0; i < 20; i++) {
            server.put("a", "p" + i, Integer.toString(i));
        }

        assertThat(blockingView.awaitCount(20)).isTrue();
        assertThat(fastView.awaitCount(1)).isTrue();
        assertThat(blockingThreads).allSatisfy(name -> assertThat(name).startsWith("blocking-"));
        assertThat(fastThreads).allSatisfy(name -> assertThat(name).startsWith("delivery-"));
    }

    @Test
    void whenTheReflectorsStreamEndsTheInformerStopsAndSaysSo() {
        // An Error is not retried (JVM errors and BlockHound's must surface): a lister that throws one ends
        // the reflector's stream for good, whether it lists by LIST or by a streaming list.
        ListerWatcher<V1Pod> broken = new ListerWatcher<>() {
            @Override
            public Mono<ObjectList<V1Pod>> list(ListOptions options) {
                return Mono.error(new AssertionError("lister bug"));
            }

            @Override
            public Flux<WatchEvent<V1Pod>> watch(WatchOptions options) {
                return Flux.error(new AssertionError("lister bug"));
            }
        };
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, broken).name("pods")
                .scheduler(informerScheduler).build();
        running = informer.start();

        StepVerifier.create(informer.hasSynced())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(InformerSyncException.class)
                        .hasMessageContaining("pods").hasMessageContaining("stopped")
                        .hasRootCauseMessage("lister bug"))
                .verify(Duration.ofSeconds(10));
        assertThat(informer.isStopped()).isTrue();
        assertThat(informer.health().stopped()).isTrue();
        assertThat(informer.health().healthy()).isFalse();
        // Health observers run on their own hand-off, after the informer has stopped: wait for the snapshot.
        StepVerifier.create(informer.healthChanges().filter(InformerHealth::stopped).next())
                .assertNext(h -> assertThat(h.stopCause()).hasStackTraceContaining("lister bug"))
                .expectComplete().verify(Duration.ofSeconds(10));
    }
}
