package io.reactiveinformer.benchmarks.workqueue;

import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.reactiveinformer.workqueue.WorkQueue;
import java.util.concurrent.CountDownLatch;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Items through add, hand-out and done per second, with {@code workers} consumers, for a batch of
 * {@value #BATCH} distinct keys per invocation: the producer adds them all, the workers take each
 * one, count it, forget its failure history and mark it done (a controller's loop after a successful
 * reconcile), and the invocation ends when all are done.
 *
 * <ul>
 *   <li>{@code official}: the official Java client's {@code DefaultRateLimitingQueue}, with
 *       {@code workers} threads looping on its blocking {@code get()}.
 *   <li>{@code reactiveOnWorkerThreads}: {@code process(workers, ...)} whose work hops to
 *       {@code Schedulers.parallel()}, so items are handled on worker threads like the official
 *       client's (at most {@code workers} at once).
 *   <li>{@code reactiveInline}: {@code process(workers, ...)} with synchronous work, which runs on
 *       the thread that hands the item over: no thread switch per item.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class WorkQueueThroughputBenchmark {

    static final int BATCH = 10_000;

    @Param({"1", "4"})
    public int workers;

    private Integer[] keys;
    private volatile CountDownLatch batchDone;

    private DefaultRateLimitingQueue<Integer> official;
    private ExecutorService officialDelayLoop;
    private Thread[] officialWorkers;

    private WorkQueue<Integer> inline;
    private Disposable inlineProcessing;
    private WorkQueue<Integer> onWorkerThreads;
    private Disposable workerThreadProcessing;

    @Setup(Level.Trial)
    public void setUp() {
        keys = new Integer[BATCH];
        for (int i = 0; i < BATCH; i++) {
            keys[i] = i;
        }

        officialDelayLoop = Executors.newSingleThreadExecutor();
        official = new DefaultRateLimitingQueue<>(officialDelayLoop);
        officialWorkers = new Thread[workers];
        for (int w = 0; w < workers; w++) {
            officialWorkers[w] = new Thread(this::officialWorkerLoop, "official-worker-" + w);
            officialWorkers[w].setDaemon(true);
            officialWorkers[w].start();
        }

        inline = WorkQueue.<Integer>builder().name("inline").build();
        inlineProcessing = inline.process(workers, key -> Mono.fromRunnable(this::count)).subscribe();

        onWorkerThreads = WorkQueue.<Integer>builder().name("threads").build();
        workerThreadProcessing = onWorkerThreads
                .process(workers, key -> Mono.fromRunnable(this::count).subscribeOn(Schedulers.parallel()))
                .subscribe();
    }

    private void count() {
        batchDone.countDown();
    }

    private void officialWorkerLoop() {
        try {
            for (;;) {
                Integer key = official.get();
                if (key == null) {
                    return;
                }
                count();
                // as the official controller's worker does after a successful reconcile, and as process() does
                official.forget(key);
                official.done(key);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        official.shutDown();
        for (Thread worker : officialWorkers) {
            worker.join(10_000);
        }
        officialDelayLoop.shutdownNow();
        inlineProcessing.dispose();
        workerThreadProcessing.dispose();
        inline.shutDown();
        onWorkerThreads.shutDown();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void official() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(BATCH);
        batchDone = done;
        for (Integer key : keys) {
            official.add(key);
        }
        done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void reactiveOnWorkerThreads() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(BATCH);
        batchDone = done;
        for (Integer key : keys) {
            onWorkerThreads.add(key);
        }
        done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void reactiveInline() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(BATCH);
        batchDone = done;
        for (Integer key : keys) {
            inline.add(key);
        }
        done.await();
    }
}
