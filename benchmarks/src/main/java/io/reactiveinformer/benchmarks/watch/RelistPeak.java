package io.reactiveinformer.benchmarks.watch;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.benchmarks.sidebyside.Harness;
import io.reactiveinformer.benchmarks.sidebyside.PeakHeap;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The heap a relist takes with the store full: an informer syncs the N pods of a {@link
 * io.reactiveinformer.benchmarks.sidebyside.ReplayServer}, its retained heap is read after GC, then the server ends
 * its watch with a 410 ({@code /expire}) and answers the relist with the same list in which a fraction of the pods
 * changed (a new resourceVersion). Measured from the 410 until the cache holds the new list and the one handler
 * (no resync) was told of every changed pod: the peak used heap (before any collection, as {@link PeakHeap}) and
 * the peak used heap right after a collection, both above the baseline taken before the informer existed, each
 * also as a ratio to the retained store. {@code benchmarks/relist-peak.sh} starts the server and runs it.
 *
 * <p>Settings (system properties): {@code server} (the replay server's URL), {@code fractions} changed between the
 * lists ({@code 0,0.1,1}), {@code runs} measured rounds (3), {@code warmup} whether one warm-up round comes first
 * ({@code true}; heap, unlike time, hardly depends on it). Requests may take 10 minutes: on a loaded machine a
 * LIST of 100,000 pods takes longer than the default minute. Output: one CSV line per
 * measurement ({@code changed,round,warmup,objects,retained_mb,peak_mb,peak_ratio,peak_after_gc_mb,
 * peak_after_gc_ratio,relist_ms}), then the medians.
 */
public final class RelistPeak {

    private static final Duration DEADLINE = Duration.ofMinutes(10);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private RelistPeak() {
    }

    public static void main(String[] args) throws Exception {
        String server = System.getProperty("server");
        int runs = Integer.getInteger("runs", 3);
        boolean warmup = Boolean.parseBoolean(System.getProperty("warmup", "true"));
        List<Double> fractions = new ArrayList<>();
        for (String f : System.getProperty("fractions", "0,0.1,1").split(",")) {
            fractions.add(Double.parseDouble(f));
        }
        Map<String, String> corpus = corpus(server);
        int n = Integer.parseInt(corpus.get("n"));
        String finalRv = corpus.get("finalResourceVersion");

        Map<Double, List<double[]>> measured = new HashMap<>();
        System.out.println("changed,round,warmup,objects,retained_mb,peak_mb,peak_ratio,peak_after_gc_mb,"
                + "peak_after_gc_ratio,relist_ms");
        for (int round = warmup ? 0 : 1; round <= runs; round++) {
            for (double changed : fractions) {
                double[] r = relist(server, n, finalRv, changed);
                System.out.printf(Locale.ROOT, "%.2f,%d,%b,%d,%.1f,%.1f,%.2f,%.1f,%.2f,%.0f%n", changed, round, round == 0,
                        (long) r[0], r[1], r[2], r[2] / r[1], r[3], r[3] / r[1], r[4]);
                if (round > 0) {
                    measured.computeIfAbsent(changed, c -> new ArrayList<>()).add(r);
                }
            }
        }
        for (double changed : fractions) {
            List<double[]> rounds = measured.get(changed);
            double retained = median(rounds, 1);
            double peak = median(rounds, 2);
            double afterGc = median(rounds, 3);
            System.out.printf(Locale.ROOT, "median, %.0f%% changed: retained %.1f MB, relist peak %.1f MB (%.2fx), "
                            + "peak after GC %.1f MB (%.2fx), relist %.0f ms over %d rounds of %d pods%n", changed * 100,
                    retained, peak, peak / retained, afterGc, afterGc / retained, median(rounds, 4), rounds.size(), n);
        }
    }

    /** One informer from start to a relist applied: {objects, retained MB, peak MB, peak after GC MB, relist ms}. */
    private static double[] relist(String server, int n, String finalRv, double changed) throws Exception {
        long baseline = Harness.settledHeapAfterGc();
        KubernetesClient client = KubernetesClient.create(ClientConfig.forServer(URI.create(server))
                .withRequestTimeout(DEADLINE));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        AtomicLong updates = new AtomicLong();
        Disposable handler = pods.notifications(SubscriberOptions.defaults().unbounded())
                .subscribe(notification -> {
                    if (notification instanceof Notification.Updated<V1Pod>) {
                        updates.incrementAndGet();
                    }
                });
        factory.start();
        factory.waitForCacheSync().block(DEADLINE);
        if (pods.indexer().size() != n) {
            throw new IllegalStateException("cache holds " + pods.indexer().size() + " of " + n);
        }
        long retained = Harness.settledHeapAfterGc() - baseline;

        long expected = (long) Math.floor(n * changed);
        PeakHeap peak = PeakHeap.start();
        long start = System.nanoTime();
        if (!get(server + "/expire?changed=" + changed).strip().equals("1")) {
            throw new IllegalStateException("no watch was waiting to expire");
        }
        pods.storeReached(finalRv).block(DEADLINE);
        Mono.fromCallable(updates::get).filter(seen -> seen >= expected)
                .repeatWhenEmpty(tries -> tries.concatMap(i -> Mono.delay(Duration.ofMillis(10))))
                .block(DEADLINE);
        long relistNanos = System.nanoTime() - start;
        long peakUsed = peak.stop() - baseline;
        long peakAfterGc = peak.peakAfterGc() - baseline;
        int objects = pods.indexer().size();

        handler.dispose();
        factory.shutdown().block(DEADLINE);
        client.close();
        get(server + "/drop");
        return new double[] {objects, retained / 1048576.0, peakUsed / 1048576.0, peakAfterGc / 1048576.0,
                relistNanos / 1e6};
    }

    private static Map<String, String> corpus(String server) throws IOException, InterruptedException {
        Map<String, String> properties = new HashMap<>();
        for (String line : get(server + "/corpus").split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                properties.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return properties;
    }

    private static String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(url + ": " + response.statusCode() + " " + response.body());
        }
        return response.body();
    }

    private static double median(List<double[]> rounds, int column) {
        double[] values = rounds.stream().mapToDouble(r -> r[column]).sorted().toArray();
        return values[values.length / 2];
    }
}
