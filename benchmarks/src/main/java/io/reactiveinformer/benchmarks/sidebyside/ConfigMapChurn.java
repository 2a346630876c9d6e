package io.reactiveinformer.benchmarks.sidebyside;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import java.time.Duration;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The controller side-by-side's churner ({@link ControllerRun}), against {@code $KUBECONFIG}:
 * <pre>
 * ConfigMapChurn setup NS N          the namespace and N ConfigMaps bench-0..N-1 with data.v=0, converged (observed
 *                                    0), or nothing if there
 * ConfigMapChurn bump NS K V         data.v=V on bench-0..K-1, as fast as 64 writes in flight allow
 * ConfigMapChurn pace NS N RATE K    five seconds of unstamped changes, then K changes at RATE/s: object i % N gets
 *                                    data.v=lat-P-i and data.ts (epoch µs just before the write), P a prefix of
 *                                    this run (bump and the unstamped changes remove data.ts)
 * </pre>
 * Prints what it did and how long it took.
 */
public final class ConfigMapChurn {

    private static final int IN_FLIGHT = 64;

    private ConfigMapChurn() {
    }

    public static void main(String[] args) {
        String namespace = args[1];
        int n = Integer.parseInt(args[2]);
        try (KubernetesClient client = KubernetesClient.create(ClientConfig.fromKubeconfig())) {
            ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class).inNamespace(namespace);
            long start = System.nanoTime();
            long count = switch (args[0]) {
                case "setup" -> setup(client, maps, namespace, n);
                case "bump" -> Flux.range(0, n)
                        .flatMap(i -> maps.patch("bench-" + i, PatchType.MERGE, data(args[3], null)), IN_FLIGHT)
                        .count().block();
                case "pace" -> pace(maps, n, Double.parseDouble(args[3]), Integer.parseInt(args[4]));
                default -> throw new IllegalArgumentException(args[0]);
            };
            System.out.printf("%s: %d writes in %.1f s%n", args[0], count, (System.nanoTime() - start) / 1e9);
        }
    }

    private static long setup(KubernetesClient client, ResourceClient<V1ConfigMap> maps, String namespace, int n) {
        client.resource(V1Namespace.class).create(new V1Namespace().metadata(new V1ObjectMeta().name(namespace)))
                .onErrorResume(e -> Mono.empty()).block();
        return Flux.range(0, n)
                .flatMap(i -> maps.create(new V1ConfigMap().metadata(new V1ObjectMeta().name("bench-" + i)
                                        .annotations(Map.of(ControllerRun.ANNOTATION, "0")))
                                .data(Map.of("v", "0")))
                        .onErrorResume(e -> Mono.empty()), IN_FLIGHT)
                .count().block();
    }

    private static long pace(ResourceClient<V1ConfigMap> maps, int n, double rate, int count) {
        String prefix = "lat-" + Long.toString(System.currentTimeMillis(), 36) + "-";
        long periodNanos = (long) (1e9 / rate);
        // the first five seconds' changes carry no stamp (ts removed) while the churner's own JVM and connection
        // warm up: on a loaded machine its first writes took seconds from stamp to commit, which the
        // contender's informer then reported as its own lag (after one second of warm-up: 0.4-4.6 s for the
        // first 60 changes at 10/s, then 10-20 ms)
        long warmup = (long) Math.ceil(rate * 5);
        return Flux.interval(Duration.ofNanos(periodNanos)).take(warmup + count)
                // a server slower than the rate holds writes back: they queue here, and each is stamped when sent
                .onBackpressureBuffer()
                .flatMap(i -> Mono.defer(() -> maps.patch("bench-" + (i % n), PatchType.MERGE,
                        data(prefix + i, i < warmup ? null : Long.toString(Harness.epochMicros())))), IN_FLIGHT)
                .count().block();
    }

    private static String data(String v, String stampMicros) {
        String ts = stampMicros == null ? "null" : "\"" + stampMicros + "\"";
        return "{\"data\":{\"v\":\"" + v + "\",\"ts\":" + ts + "}}";
    }
}
