package io.reactiveinformer.benchmarks.informer;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.benchmarks.cache.BenchmarkPods;
import io.reactiveinformer.informer.BufferPolicy;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Notification fan-out: watch changes through a {@link SharedIndexInformer} (reflector, FIFO, cache
 * write, one offer per subscriber buffer) to subscribers that keep up, each drained on its own worker of
 * the informer's default delivery scheduler ({@code Schedulers.parallel()}), as a user would set it up.
 *
 * <p>The source is an in-memory {@link ListerWatcher} over pre-built pods (a list of {@value #KEYS}, then
 * MODIFIED events from a hot sink), so neither the codec nor HTTP is measured. Each invocation emits one
 * MODIFIED for every one of the {@value #KEYS} keys on the benchmark thread, which therefore also runs the
 * apply loop and the offers (the FIFO drains on the pushing thread), then waits until every subscriber
 * has received all of them.
 *
 * <p>Why wait: delivery is asynchronous, on the subscribers' workers. Without waiting, the score would be
 * the offers alone and unbounded buffers would grow across invocations. The wait is a
 * {@link CountDownLatch} per invocation (one per {@value #KEYS} changes) that each subscriber counts down
 * on its last notification; it parks rather than spins, since a spinning benchmark thread would take one
 * of two cores from the delivery threads. The measured time thus covers offering and delivery, overlapped
 * as in production, plus one wake-up per invocation.
 *
 * <p>Scores: the primary one ({@code ops/s}) is changes per second, which is notifications delivered per
 * second <em>per subscriber</em>; {@code fanOut:delivered} is the total over all subscribers. With
 * {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes per change for all threads (divide by
 * {@code subscribers} for bytes per delivered notification). Each key changes once per invocation, so a
 * {@link BufferPolicy#COALESCE} buffer never merges here: it measures its bookkeeping, not its savings.
 * {@link BufferPolicy#BOUNDED} has room for one invocation's changes, so a subscriber that keeps up
 * never overflows.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class NotificationFanOutBenchmark {

    private static final int KEYS = 1_000;
    private static final int ROUNDS = 4;
    private static final int DEMAND_BATCH = 256;
    private static final long DELIVERY_TIMEOUT_SECONDS = 60;

    /** How the subscribers request. */
    public enum Demand {
        /** {@code request(Long.MAX_VALUE)} once. */
        UNBOUNDED,
        /** {@code request(256)}, and again after every 256 received. */
        BATCH
    }

    /** Notifications delivered over all subscribers, reported per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Delivered {

        public long delivered;

        @Setup(Level.Iteration)
        public void reset() {
            delivered = 0;
        }
    }

    /** Every subscriber's count to reach in this invocation, and the latch they count down on reaching it. */
    private record Round(long target, CountDownLatch arrived) {
    }

    @Param({"1", "10", "100"})
    public int subscribers;

    @Param({"COALESCE", "UNBOUNDED", "BOUNDED"})
    public BufferPolicy policy;

    @Param({"UNBOUNDED", "BATCH"})
    public Demand demand;

    private final Sinks.Many<WatchEvent<V1Pod>> watch = Sinks.many().multicast().directAllOrNothing();
    private final CountDownLatch watching = new CountDownLatch(1);
    private WatchEvent<V1Pod>[][] rounds;
    private List<CountingSubscriber> counters;
    private Disposable running;
    private volatile Round round;
    private int invocation;

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void setUp() throws InterruptedException {
        List<V1Pod> initial = new ArrayList<>(KEYS);
        for (int i = 0; i < KEYS; i++) {
            initial.add(BenchmarkPods.pod(i, 50, 1));
        }
        rounds = new WatchEvent[ROUNDS][KEYS];
        for (int r = 0; r < ROUNDS; r++) {
            for (int i = 0; i < KEYS; i++) {
                rounds[r][i] = new WatchEvent<>(WatchEvent.Type.MODIFIED, BenchmarkPods.pod(i, 50, 2 + r * KEYS + i));
            }
        }
        ObjectList<V1Pod> list = new ObjectList<>(initial, "1", null, null);
        ListerWatcher<V1Pod> source = new ListerWatcher<>() {
            @Override
            public Mono<ObjectList<V1Pod>> list(ListOptions options) {
                return Mono.just(list);
            }

            @Override
            public Flux<WatchEvent<V1Pod>> watch(WatchOptions options) {
                return watch.asFlux().doOnSubscribe(s -> watching.countDown());
            }
        };
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, source).name("fan-out").build();

        SubscriberOptions options = switch (policy) {
            case COALESCE -> SubscriberOptions.defaults().coalescing();
            case UNBOUNDED -> SubscriberOptions.defaults().unbounded();
            case BOUNDED -> SubscriberOptions.defaults().bounded(KEYS);
        };
        Round initialState = new Round(KEYS, new CountDownLatch(subscribers));
        round = initialState;
        counters = new ArrayList<>(subscribers);
        for (int i = 0; i < subscribers; i++) {
            CountingSubscriber counter = new CountingSubscriber();
            counters.add(counter);
            informer.notifications(options).subscribe(counter);
        }
        running = informer.start();
        await(initialState);
        if (!watching.await(DELIVERY_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the informer did not start watching");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        running.dispose();
        counters.forEach(BaseSubscriber::dispose);
    }

    /** Per change, delivered to every subscriber. */
    @Benchmark
    @OperationsPerInvocation(KEYS)
    public void fanOut(Delivered delivered) throws InterruptedException {
        WatchEvent<V1Pod>[] changes = rounds[invocation++ % ROUNDS];
        Round next = new Round(round.target + KEYS, new CountDownLatch(subscribers));
        round = next;
        for (WatchEvent<V1Pod> change : changes) {
            watch.tryEmitNext(change).orThrow();
        }
        await(next);
        delivered.delivered += (long) KEYS * subscribers;
    }

    private void await(Round r) throws InterruptedException {
        if (!r.arrived.await(DELIVERY_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            StringBuilder failures = new StringBuilder();
            for (CountingSubscriber counter : counters) {
                if (counter.failure != null) {
                    failures.append("; ").append(counter.failure);
                }
            }
            throw new IllegalStateException("not every subscriber received " + r.target + " notifications within "
                    + DELIVERY_TIMEOUT_SECONDS + " s" + failures);
        }
    }

    /** Counts what it receives; called on its own worker only, one signal at a time. */
    private final class CountingSubscriber extends BaseSubscriber<Notification<V1Pod>> {

        private long received;
        private int sinceRequest;
        volatile Throwable failure;

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            if (demand == Demand.UNBOUNDED) {
                requestUnbounded();
            } else {
                request(DEMAND_BATCH);
            }
        }

        @Override
        protected void hookOnNext(Notification<V1Pod> notification) {
            if (demand == Demand.BATCH && ++sinceRequest == DEMAND_BATCH) {
                sinceRequest = 0;
                request(DEMAND_BATCH);
            }
            Round r = round;
            if (++received == r.target) {
                r.arrived.countDown();
            }
        }

        @Override
        protected void hookOnError(Throwable error) {
            failure = error;
        }
    }
}
