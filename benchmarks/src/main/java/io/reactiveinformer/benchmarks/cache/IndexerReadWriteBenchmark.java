package io.reactiveinformer.benchmarks.cache;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.cache.ConcurrentIndexer;
import io.reactiveinformer.cache.Indexer;
import io.reactiveinformer.cache.ObjectKeys;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Reads of a 10k-pod cache (get by key, list one namespace through the namespace index) while one
 * writer keeps replacing pods, as the informer's apply loop does under churn.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class IndexerReadWriteBenchmark {

    private static final int PODS = 10_000;
    private static final int NAMESPACES = 50;

    private ConcurrentIndexer<V1Pod> indexer;
    private V1Pod[][] versions;
    private String[] keys;
    private int writes;

    @Setup(Level.Trial)
    public void setUp() {
        indexer = new ConcurrentIndexer<>();
        versions = new V1Pod[2][PODS];
        keys = new String[PODS];
        for (int i = 0; i < PODS; i++) {
            versions[0][i] = BenchmarkPods.pod(i, NAMESPACES, 1);
            versions[1][i] = BenchmarkPods.pod(i, NAMESPACES, 2);
            keys[i] = ObjectKeys.keyOf(versions[0][i]);
            indexer.put(versions[0][i]);
        }
    }

    @Benchmark
    @Group("churn")
    @GroupThreads(1)
    public Object write() {
        int n = writes++;
        return indexer.put(versions[(n / PODS) & 1][n % PODS]);
    }

    @Benchmark
    @Group("churn")
    @GroupThreads(1)
    public Object get() {
        return indexer.getByKey(keys[ThreadLocalRandom.current().nextInt(PODS)]);
    }

    @Benchmark
    @Group("churn")
    @GroupThreads(1)
    public void byNamespace(Blackhole blackhole) {
        blackhole.consume(indexer.byIndex(Indexer.NAMESPACE_INDEX, "ns-" + ThreadLocalRandom.current().nextInt(NAMESPACES)));
    }
}
