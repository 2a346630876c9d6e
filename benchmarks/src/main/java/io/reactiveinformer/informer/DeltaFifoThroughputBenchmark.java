package io.reactiveinformer.informer;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.benchmarks.cache.BenchmarkPods;
import io.reactiveinformer.cache.ConcurrentIndexer;
import java.util.concurrent.TimeUnit;
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
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

/**
 * DeltaFifo push and drain on one thread: each pushed change is integrated, delivered and applied to
 * the cache. {@code pushThenDrainBatch} pushes 1000 changes (over 1000 keys, or 100 keys so that
 * each key coalesces ten) with no demand, then requests them all. In the library's package because the
 * FIFO is package-private there (on the class path, where JMH runs, the package is shared).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DeltaFifoThroughputBenchmark {

    private static final int PODS = 10_000;
    private static final int BATCH = 1_000;

    /** Applies what it receives to the cache, as the informer's apply loop does. */
    private static final class Consumer extends BaseSubscriber<FifoEntry<V1Pod>> {

        private final ConcurrentIndexer<V1Pod> cache;
        long received;

        Consumer(ConcurrentIndexer<V1Pod> cache) {
            this.cache = cache;
        }

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
        }

        @Override
        protected void hookOnNext(FifoEntry<V1Pod> entry) {
            received++;
            cache.put(((FifoEntry.Deltas<V1Pod>) entry).newest().object());
        }
    }

    private V1Pod[] pods;
    private DeltaFifo<V1Pod> unbounded;
    private Consumer unboundedConsumer;
    private DeltaFifo<V1Pod> batched;
    private Consumer batchedConsumer;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        pods = new V1Pod[PODS];
        for (int i = 0; i < PODS; i++) {
            pods[i] = BenchmarkPods.pod(i, 50, 1);
        }
        ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
        unbounded = new DeltaFifo<>(cache);
        unboundedConsumer = new Consumer(cache);
        unbounded.entries().subscribe(unboundedConsumer);
        unboundedConsumer.requestUnbounded();

        ConcurrentIndexer<V1Pod> batchCache = new ConcurrentIndexer<>();
        batched = new DeltaFifo<>(batchCache);
        batchedConsumer = new Consumer(batchCache);
        batched.entries().subscribe(batchedConsumer);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        unboundedConsumer.cancel();
        batchedConsumer.cancel();
    }

    @Benchmark
    public long pushWithDemand() {
        unbounded.update(pods[next++ % PODS]);
        return unboundedConsumer.received;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long pushThenDrainBatchDistinctKeys() {
        for (int i = 0; i < BATCH; i++) {
            batched.update(pods[next++ % PODS]);
        }
        batchedConsumer.request(BATCH);
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
        // exactly what is pending (100 keys), so no demand is left over to deliver the next batch eagerly
        batchedConsumer.request(100);
        return batchedConsumer.received;
    }
}
