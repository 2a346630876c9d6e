package io.reactiveinformer.benchmarks.sidebyside;

import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.reactiveinformer.codec.KubernetesJson;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.ObjectReader;

/**
 * The ceiling: the same bytes over the same loopback HTTP, decoded by Jackson 3 into the same
 * {@code V1Pod} models and kept in a plain map by key, on one thread, with no informer, queue or
 * handler. Arguments as {@link ReactiveInformerContender} (subscribers are ignored). Takes part in the
 * matrix and the latency measures (where it shows what decoding alone costs); without an informer it
 * has no threads-per-informer or slow-handler measure.
 */
public final class CeilingContender {

    /** A watch event line as Jackson binds it. */
    public static final class Event {
        public String type;
        public V1Pod object;
    }

    public static void main(String[] args) throws Exception {
        Harness h = new Harness(args);
        KubernetesJson json = KubernetesJson.defaults();
        ObjectReader listReader = json.mapper().readerFor(V1PodList.class);
        ObjectReader eventReader = json.mapper().readerFor(Event.class);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        if (h.mode != Harness.Mode.MATRIX && h.mode != Harness.Mode.LATENCY) {
            throw new IllegalArgumentException("the ceiling has no informer to measure in mode " + h.mode);
        }
        for (Harness.Round round : h.rounds()) {
            Harness.Target t = round.target();
            String rv = t.corpus().getProperty("listResourceVersion");
            boolean latency = h.mode == Harness.Mode.LATENCY;
            int count = latency ? Harness.latencyCount() : Integer.MAX_VALUE;
            int expected = latency ? t.notificationsIn(count) : round.notifications();
            Latencies latencies = new Latencies(latency ? expected : 0);
            long before = Harness.settledHeapAfterGc();
            PeakHeap peakHeap = PeakHeap.start();
            Map<String, V1Pod> store = new HashMap<>();
            ProcessCost syncCost = ProcessCost.start();
            long start = System.nanoTime();
            try (InputStream in = http.send(HttpRequest.newBuilder(t.server().resolve("/api/v1/pods")).build(),
                    HttpResponse.BodyHandlers.ofInputStream()).body()) {
                V1PodList list = listReader.readValue(in);
                for (V1Pod pod : list.getItems()) {
                    store.put(key(pod), pod);
                }
            }
            long synced = System.nanoTime() - start;
            Map<String, Object> syncPer = syncCost.per("sync", "object", t.objects());
            long peak = peakHeap.stop();
            long withCache = Harness.usedHeapAfterGc();
            int threads = Harness.liveThreads();
            Map<String, Object> m = new LinkedHashMap<>();
            if (expected > 0) {
                Map<String, Object> watched = watch(http, eventReader, t, rv, latency, count, expected, store, latencies);
                if (latency) {
                    m = latencies.summary(t, Harness.LATENCY_DISCARD_MICROS);
                    m.put("lat_rate", Harness.latencyRate());
                    h.report("ceiling", round, m);
                    continue;
                }
                m.putAll(watched);
            }
            m.put("synced_ms", synced / 1e6);
            m.put("listed_to_handlers_ms", synced / 1e6);
            m.putAll(syncPer);
            m.put("cached", store.size());
            m.put("threads", threads);
            m.put("heap_growth_per_object", (withCache - before) / t.objects());
            m.put("heap_before_mb", before >> 20);
            m.put("sync_peak_heap_mb", (peak - before) >> 20);
            store.clear();
            t.dropWatches();
            h.report("ceiling", round, m);
        }
        System.exit(0);
    }

    /**
     * Plays the watch stream into {@code store} until {@code expected} notifications; answers its events/s and
     * what the process spent per event (from the stream's release, the watch already open).
     */
    private static Map<String, Object> watch(HttpClient http, ObjectReader eventReader, Harness.Target t, String rv, boolean latency,
            int count, int expected, Map<String, V1Pod> store, Latencies latencies) throws Exception {
        CompletableFuture<HttpResponse<InputStream>> watch = http.sendAsync(HttpRequest.newBuilder(
                t.server().resolve("/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        InputStream body = watch.join().body();
        ProcessCost watchCost = ProcessCost.start();
        long watchStart = System.nanoTime();
        t.go(latency ? Harness.latencyRate() : 0, count);
        int seen = 0;
        try (MappingIterator<Event> events = eventReader.readValues(body)) {
            while (seen < expected && events.hasNext()) {
                Event e = events.next();
                if (latency && !"BOOKMARK".equals(e.type)) {
                    latencies.record(e.object.getMetadata().getResourceVersion());
                }
                switch (e.type) {
                    case "ADDED", "MODIFIED" -> store.put(key(e.object), e.object);
                    case "DELETED" -> store.remove(key(e.object));
                    default -> {
                        continue;
                    }
                }
                seen++;
            }
        }
        if (seen < expected) {
            throw new IllegalStateException("watch ended after " + seen + " notifications");
        }
        long watched = System.nanoTime() - watchStart;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("events_per_s", Math.round(expected / (watched / 1e9)));
        m.putAll(watchCost.per("watch", "event", expected));
        return m;
    }

    private static String key(V1Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }
}
