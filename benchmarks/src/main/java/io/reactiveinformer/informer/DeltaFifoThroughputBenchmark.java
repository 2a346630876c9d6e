package io.reactiveinformer.informer;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.benchmarks.cache.BenchmarkPods;
import io.reactiveinformer.cache.ConcurrentIndexer;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;

/**
 * DeltaFifo push and drain on one thread: each pushed change is integrated, delivered and applied to
 * the cache. {@code pushWithDrain} drains each change as it is pushed (the drain loop on
 * {@code Schedulers.immediate()}); {@code pushThenDrainBatch} pushes 1000 changes (over 1000 keys, or 100 keys
 * so that each key coalesces ten) while the drain loop waits, then runs it. In the library's package because
 * the FIFO is package-private there (on the class path, where JMH runs, the package is shared).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DeltaFifoThroughputBenchmark {

    private static final int PODS = 10_000;
    private static final int BATCH = 1_000;

    /** Applies what it receives to the cache, as the informer's apply loop does. */
    private static final class Consumer implements DeltaFifo.EntryConsumer<V1Pod> {

        private final ConcurrentIndexer<V1Pod> cache;
        long received;

        Consumer(ConcurrentIndexer<V1Pod> cache) {
            this.cache = cache;
        }

        @Override
        public void accept(FifoEntry<V1Pod> entry) {
            received++;
            FifoEntry.Deltas<V1Pod> deltas = (FifoEntry.Deltas<V1Pod>) entry;
            cache.put(deltas.key(), deltas.newest().object());
        }

        @Override
        public void failed(Throwable cause) {
            throw new IllegalStateException(cause);
        }
    }

    private V1Pod[] pods;
    private DeltaFifo<V1Pod> immediate;
    private Consumer immediateConsumer;
    private DeltaFifo<V1Pod> batched;
    private Consumer batchedConsumer;
    /** The batched FIFO's scheduled drain, run when the benchmark says. */
    private final Queue<Runnable> drains = new ArrayDeque<>();
    private Disposable immediateStarted;
    private Disposable batchedStarted;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        pods = new V1Pod[PODS];
        for (int i = 0; i < PODS; i++) {
            pods[i] = BenchmarkPods.pod(i, 50, 1);
        }
        ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
        immediate = new DeltaFifo<>(cache, UnaryOperator.identity(), Schedulers.immediate(), e -> { throw e; }, () -> { });
        immediateConsumer = new Consumer(cache);
        immediateStarted = immediate.start(immediateConsumer);

        ConcurrentIndexer<V1Pod> batchCache = new ConcurrentIndexer<>();
        batched = new DeltaFifo<>(batchCache, UnaryOperator.identity(), Schedulers.fromExecutor(drains::add),
                e -> { throw e; }, () -> { });
        batchedConsumer = new Consumer(batchCache);
        batchedStarted = batched.start(batchedConsumer);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        immediateStarted.dispose();
        batchedStarted.dispose();
    }

    private void runDrains() {
        Runnable drain;
        while ((drain = drains.poll()) != null) {
            drain.run();
        }
    }

    @Benchmark
    public long pushWithDrain() {
        immediate.update(pods[next++ % PODS]);
        return immediateConsumer.received;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long pushThenDrainBatchDistinctKeys() {
        for (int i = 0; i < BATCH; i++) {
            batched.update(pods[next++ % PODS]);
        }
        runDrains();
        return batchedConsumer.received;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long pushThenDrainBatchCoalescing() {
        int base = next;
        for (int i = 0; i < BATCH; i++) {
            batched.update(pods[(base + i % 100) % PODS]);
        }
        next += 100;
        runDrains();
        return batchedConsumer.received;
    }
}
