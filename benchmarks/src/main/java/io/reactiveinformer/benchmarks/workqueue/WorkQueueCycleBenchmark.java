package io.reactiveinformer.benchmarks.workqueue;

import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.reactiveinformer.workqueue.WorkQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * The bare cost of the queue bookkeeping on one thread, no hand-off between threads: add
 * {@value #DEPTH} distinct keys (plus one duplicate each, which collapses), then take and finish
 * each one. One operation is one key through add, duplicate add, get and done.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class WorkQueueCycleBenchmark {

    static final int DEPTH = 1_000;

    private Integer[] keys;
    private DefaultRateLimitingQueue<Integer> official;
    private ExecutorService officialDelayLoop;
    private WorkQueue<Integer> reactive;
    private final Taker taker = new Taker();

    @Setup(Level.Trial)
    public void setUp() {
        keys = new Integer[DEPTH];
        for (int i = 0; i < DEPTH; i++) {
            keys[i] = i;
        }
        officialDelayLoop = Executors.newSingleThreadExecutor();
        official = new DefaultRateLimitingQueue<>(officialDelayLoop);
        reactive = WorkQueue.<Integer>builder().name("cycle").build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        official.shutDown();
        officialDelayLoop.shutdownNow();
        reactive.shutDown();
    }

    @Benchmark
    @OperationsPerInvocation(DEPTH)
    public void official(Blackhole bh) throws InterruptedException {
        for (Integer key : keys) {
            official.add(key);
            official.add(key);
        }
        for (int i = 0; i < DEPTH; i++) {
            Integer key = official.get();
            bh.consume(key);
            official.done(key);
        }
    }

    @Benchmark
    @OperationsPerInvocation(DEPTH)
    public void reactive(Blackhole bh) {
        for (Integer key : keys) {
            reactive.add(key);
            reactive.add(key);
        }
        for (int i = 0; i < DEPTH; i++) {
            // an item is ready, so get() emits synchronously into the reusable subscriber
            reactive.get().subscribe(taker);
            Integer key = taker.taken;
            bh.consume(key);
            reactive.done(key);
        }
    }

    /** Takes one item per subscription; reused to keep the subscriber out of the measurement. */
    static final class Taker implements CoreSubscriber<Integer> {
        Integer taken;

        @Override
        public void onSubscribe(Subscription s) {
            s.request(1);
        }

        @Override
        public void onNext(Integer item) {
            taken = item;
        }

        @Override
        public void onError(Throwable t) {
            throw new IllegalStateException(t);
        }

        @Override
        public void onComplete() {}
    }
}
