package io.reactiveinformer.benchmarks.watch;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.benchmarks.sidebyside.PeakHeap;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.Encoding;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.watch.ReflectorOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import reactor.core.publisher.Flux;

/**
 * Time to synced and peak used heap of one ConfigMap informer against a real API server, listing the way
 * the reflector does by default (LIST, client-go's paging policy) and with a streaming list
 * ({@code sendInitialEvents=true}, KEP-3157), in alternating rounds over the same objects: the measure
 * behind the choice of the default. {@code benchmarks/streaming-list.sh} starts the test environment's
 * kube-apiserver and runs it.
 *
 * <p>Settings (system properties): {@code n} objects (10,000), {@code bytes} of data each (5,000, about a
 * pod's size), {@code runs} measured rounds per mode (5, after one warm-up round each), {@code kubeconfig}
 * and {@code context}, {@code encodings} the client reads in ({@code PROTOBUF}, the default, or a list such as
 * {@code PROTOBUF,JSON}: each mode in each, the mode's name then suffixed with the encoding). Output: one CSV line per round on standard output
 * ({@code mode,round,warmup,objects,synced_ms,peak_heap_mb}), then the medians.
 */
public final class StreamingListVsList {

    private static final Duration DEADLINE = Duration.ofMinutes(10);
    private static final String NAMESPACE = "streaming-list-bench";

    private StreamingListVsList() {
    }

    public static void main(String[] args) {
        int n = Integer.getInteger("n", 10_000);
        int bytes = Integer.getInteger("bytes", 5_000);
        int runs = Integer.getInteger("runs", 5);
        ClientConfig config = ClientConfig.fromKubeconfig(List.of(Path.of(System.getProperty("kubeconfig"))),
                System.getProperty("context"));
        fill(config, n, bytes);

        Map<String, ReflectorOptions> modes = Map.of(
                "list", ReflectorOptions.defaults(),
                "streaming", ReflectorOptions.defaults().withStreamingList(true));
        // -Dencodings=PROTOBUF,JSON: each mode in each encoding the client reads in (the client's default first)
        List<Encoding> encodings = Arrays.stream(System.getProperty("encodings", "PROTOBUF").split(","))
                .map(String::trim).map(Encoding::valueOf).toList();
        List<String> names = new ArrayList<>();
        for (Encoding encoding : encodings) {
            for (String mode : List.of("list", "streaming")) {
                names.add(encodings.size() == 1 ? mode : mode + "-" + encoding.name().toLowerCase(Locale.ROOT));
            }
        }
        Map<String, List<long[]>> measured = new HashMap<>();
        System.out.println("mode,round,warmup,objects,synced_ms,peak_heap_mb");
        for (int round = 0; round <= runs; round++) {
            // rotate which mode goes first, so none always follows another's garbage
            List<String> order = new ArrayList<>(names);
            Collections.rotate(order, -round);
            for (String name : order) {
                int index = names.indexOf(name);
                String mode = index % 2 == 0 ? "list" : "streaming";
                long[] result = sync(config.withEncoding(encodings.get(index / 2)), modes.get(mode), n);
                boolean warmup = round == 0;
                System.out.printf(Locale.ROOT, "%s,%d,%b,%d,%d,%.1f%n", name, round, warmup, result[0], result[1],
                        result[2] / 1048576.0);
                if (!warmup) {
                    measured.computeIfAbsent(name, m -> new ArrayList<>()).add(result);
                }
            }
        }
        for (String mode : names) {
            List<long[]> rounds = measured.get(mode);
            System.out.printf(Locale.ROOT, "median %s: synced %d ms, peak heap %.1f MB over %d rounds of %d objects%n",
                    mode, median(rounds, 1), median(rounds, 2) / 1048576.0, rounds.size(), n);
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
            String filler = "x".repeat(bytes);
            Flux.range(present, Math.max(0, n - present))
                    .flatMap(i -> maps.create(new V1ConfigMap().metadata(new V1ObjectMeta().name(String.format("cm-%06d", i))
                            .labels(Map.of("app", "bench", "shard", Integer.toString(i % 16))))
                            .data(Map.of("filler", filler))), 32)
                    .then().block(DEADLINE);
        } finally {
            client.close();
        }
    }

    /** One informer from start to synced on a fresh client: {objects, synced ms, peak used heap bytes}. */
    private static long[] sync(ClientConfig config, ReflectorOptions options, int n) {
        System.gc();
        PeakHeap peak = PeakHeap.start();
        long start = System.nanoTime();
        KubernetesClient client = KubernetesClient.create(config);
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(options).build();
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(NAMESPACE));
        factory.start();
        factory.waitForCacheSync().block(DEADLINE);
        long synced = (System.nanoTime() - start) / 1_000_000;
        long heap = peak.stop();
        int objects = informer.indexer().list().size();
        factory.shutdown().block(DEADLINE);
        client.close();
        if (objects < n) {
            throw new IllegalStateException("synced with " + objects + " of " + n + " objects");
        }
        return new long[] {objects, synced, heap};
    }

    private static long median(List<long[]> rounds, int column) {
        long[] values = rounds.stream().mapToLong(r -> r[column]).sorted().toArray();
        return values[values.length / 2];
    }
}
