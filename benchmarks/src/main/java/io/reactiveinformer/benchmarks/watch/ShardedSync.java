package io.reactiveinformer.benchmarks.watch;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.benchmarks.sidebyside.PeakHeap;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import java.lang.ref.WeakReference;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What one replica of a sharded controller pays to sync its share of N ConfigMaps on a real API server with
 * {@code ShardedListAndWatch} on, for 1, 2 and 4 replicas over 4 shards (a replica holds 4, 2 or 1 of them):
 * time to synced, CPU time of the process during the sync, peak used heap during it and retained heap after
 * it. Rounds alternate the order of the replica counts. {@code benchmarks/sharded-sync.sh} starts the test
 * environment's kube-apiserver and runs it.
 *
 * <p>Settings (system properties): {@code n} objects (100,000), {@code bytes} of random data each (1,000),
 * {@code runs} measured rounds (3, after one warm-up round), {@code kubeconfig} and {@code context}. Output:
 * one CSV line per measurement ({@code replicas,round,warmup,objects,synced_ms,cpu_ms,peak_heap_mb,retained_mb}),
 * then the medians.
 */
public final class ShardedSync {

    private static final Duration DEADLINE = Duration.ofMinutes(20);
    private static final String NAMESPACE = "sharded-sync-bench";
    private static final int SHARDS = 4;

    private ShardedSync() {
    }

    public static void main(String[] args) {
        int n = Integer.getInteger("n", 100_000);
        int bytes = Integer.getInteger("bytes", 1_000);
        int runs = Integer.getInteger("runs", 3);
        ClientConfig config = ClientConfig.fromKubeconfig(List.of(Path.of(System.getProperty("kubeconfig"))),
                System.getProperty("context"));
        fill(config, n, bytes);

        Map<Integer, List<long[]>> measured = new HashMap<>();
        System.out.println("replicas,round,warmup,objects,synced_ms,cpu_ms,peak_heap_mb,retained_mb");
        for (int round = 0; round <= runs; round++) {
            List<Integer> order = round % 2 == 0 ? List.of(1, 2, 4) : List.of(4, 2, 1);
            for (int replicas : order) {
                long[] result = sync(config, replicas);
                boolean warmup = round == 0;
                System.out.printf(Locale.ROOT, "%d,%d,%b,%d,%d,%d,%.1f,%.1f%n", replicas, round, warmup, result[0],
                        result[1], result[2], result[3] / 1048576.0, result[4] / 1048576.0);
                if (!warmup) {
                    measured.computeIfAbsent(replicas, r -> new ArrayList<>()).add(result);
                }
            }
        }
        for (int replicas : List.of(1, 2, 4)) {
            List<long[]> rounds = measured.get(replicas);
            System.out.printf(Locale.ROOT, "median, %d replica(s): %d objects, synced %d ms, cpu %d ms, peak heap %.1f MB,"
                            + " retained %.1f MB over %d rounds of %d objects%n", replicas, median(rounds, 0),
                    median(rounds, 1), median(rounds, 2), median(rounds, 3) / 1048576.0, median(rounds, 4) / 1048576.0,
                    rounds.size(), n);
        }
    }

    /** Creates the objects the rounds list, unless a previous run left them. */
    private static void fill(ClientConfig config, int n, int bytes) {
        KubernetesClient client = KubernetesClient.create(config);
        try {
            ResourceClient<V1Namespace> namespaces = client.resource(V1Namespace.class);
            namespaces.get(NAMESPACE).onErrorResume(e -> namespaces.create(new V1Namespace()
                    .metadata(new V1ObjectMeta().name(NAMESPACE)))).block(DEADLINE);
            ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class).inNamespace(NAMESPACE);
            int present = maps.list(ListOptions.none().withLimit(1)).map(page -> page.items().size()
                    + (page.remainingItemCount() == null ? 0 : page.remainingItemCount().intValue())).block(DEADLINE);
            Flux.range(present, Math.max(0, n - present))
                    .flatMap(i -> maps.create(new V1ConfigMap().metadata(new V1ObjectMeta().name(String.format("cm-%06d", i)))
                            .data(Map.of("filler", filler(bytes)))), 32)
                    .then().block(DEADLINE);
        } finally {
            client.close();
        }
    }

    /** Random, so that the server's compression does not make the bytes on the wire nothing. */
    private static String filler(int bytes) {
        byte[] random = new byte[bytes * 3 / 4];
        ThreadLocalRandom.current().nextBytes(random);
        return Base64.getEncoder().encodeToString(random);
    }

    /**
     * One replica's informer (shards 0 to {@code 4 / replicas - 1} of 4) from start to synced on a fresh client:
     * {objects, synced ms, process CPU ms, peak used heap bytes, retained heap bytes}.
     */
    /** The informer of the previous measurement: its cache must be gone before the next baseline is taken. */
    private static WeakReference<Object> previous = new WeakReference<>(null);

    private static long[] sync(ClientConfig config, int replicas) {
        long collected = awaitCollected(previous);
        if (collected > 0) {
            System.err.printf("the previous informer became unreachable %d ms after its factory shut down%n", collected);
        }
        long baseline = usedHeapAfterGc();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        PeakHeap peak = PeakHeap.start();
        long cpu = os.getProcessCpuTime();
        long start = System.nanoTime();
        KubernetesClient client = KubernetesClient.create(config);
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        ShardSelector share = ShardSelector.shards(ShardSelector.Key.UID,
                IntStream.range(0, SHARDS / replicas).boxed().toList(), SHARDS);
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(NAMESPACE).withShardSelector(replicas == 1 ? null : share));
        factory.start();
        factory.waitForCacheSync().block(DEADLINE);
        long synced = (System.nanoTime() - start) / 1_000_000;
        long cpuMillis = (os.getProcessCpuTime() - cpu) / 1_000_000;
        long heap = peak.stop();
        long retained = usedHeapAfterGc() - baseline;
        int objects = informer.indexer().size();
        if (informer.health().shardFilteringLocally()) {
            throw new IllegalStateException("the server ignores shard selectors: start it with ShardedListAndWatch=true");
        }
        factory.shutdown().block(DEADLINE);
        client.close();
        previous = new WeakReference<>(informer);
        return new long[] {objects, synced, cpuMillis, heap, retained};
    }

    /**
     * Collects until {@code reference} is cleared (a stopped informer's connection closes asynchronously, and
     * until then the retained heap of the next measurement would count it as its baseline): how long it took.
     */
    private static long awaitCollected(WeakReference<Object> reference) {
        long start = System.nanoTime();
        Mono.fromCallable(() -> {
                    System.gc();
                    return reference.get() == null;
                })
                .filter(gone -> gone)
                .repeatWhenEmpty(tries -> tries.concatMap(i -> Mono.delay(Duration.ofMillis(100))))
                .timeout(Duration.ofMinutes(1))
                .block();
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long median(List<long[]> rounds, int column) {
        long[] values = rounds.stream().mapToLong(r -> r[column]).sorted().toArray();
        return values[values.length / 2];
    }
}
