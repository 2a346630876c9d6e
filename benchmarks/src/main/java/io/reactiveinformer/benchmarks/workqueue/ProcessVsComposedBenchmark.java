package io.reactiveinformer.benchmarks.workqueue;

import io.reactiveinformer.workqueue.WorkQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Whether the hand-written {@code process(concurrency, worker)} (ProcessMono: one parked demand per free
 * worker slot) earns its code against the same semantics composed from public operators on {@code get()}:
 * {@code concurrency} lanes, each {@code get → work → forget, done → get again}, merged with
 * {@code flatMap(lane, concurrency)}. Items of a batch of {@value #BATCH} distinct keys per invocation,
 * work inline (on the thread that hands the item over) or hopped to {@code Schedulers.parallel()}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ProcessVsComposedBenchmark {

    static final int BATCH = 10_000;

    @Param({"1", "4"})
    public int workers;

    @Param({"inline", "parallel"})
    public String work;

    private Integer[] keys;
    private volatile CountDownLatch batchDone;
    private WorkQueue<Integer> processed;
    private WorkQueue<Integer> composed;
    private Disposable running;

    @Setup(Level.Trial)
    public void setUp() {
        keys = new Integer[BATCH];
        for (int i = 0; i < BATCH; i++) {
            keys[i] = i;
        }
        Function<Integer, Mono<Void>> worker = "inline".equals(work)
                ? key -> Mono.fromRunnable(this::count)
                : key -> Mono.<Void>fromRunnable(this::count).subscribeOn(Schedulers.parallel());
        processed = WorkQueue.<Integer>builder().name("process").build();
        composed = WorkQueue.<Integer>builder().name("composed").build();
        Flux<Integer> lanes = Flux.range(0, workers).flatMap(lane -> Mono.defer(composed::get)
                .flatMap(key -> worker.apply(key)
                        .doOnSuccess(ignored -> composed.forget(key))
                        .doFinally(signal -> composed.done(key))
                        .thenReturn(key))
                .repeat(() -> !composed.isShuttingDown()), workers);
        running = Disposables.composite(processed.process(workers, worker).subscribe(), lanes.subscribe());
    }

    private void count() {
        batchDone.countDown();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        running.dispose();
        processed.shutDown();
        composed.shutDown();
    }

    private void batch(WorkQueue<Integer> queue) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(BATCH);
        batchDone = done;
        for (Integer key : keys) {
            queue.add(key);
        }
        done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void process() throws InterruptedException {
        batch(processed);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void composed() throws InterruptedException {
        batch(composed);
    }
}
