package io.reactiveinformer.benchmarks.sidebyside;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The official Java client's {@code SharedInformerFactory}: one pod informer across all namespaces (no
 * resync) with {@code SUBSCRIBERS} event handlers (the mode is {@link Harness.Mode}). Synced is polled
 * every millisecond, as its own {@code waitForCacheSync} polls. Its factory keeps one informer per type,
 * so the threads measure uses one factory per namespace over one {@code ApiClient}. Arguments:
 * {@code SERVER [SUBSCRIBERS [WARMUPS [ITERATIONS]]]}.
 */
public final class OfficialJavaContender {

    public static void main(String[] args) throws Exception {
        Harness h = new Harness(args);
        for (Harness.Round round : h.rounds()) {
            Harness.Target t = round.target();
            Map<String, Object> m = switch (h.mode) {
                case MATRIX -> matrix(h, round);
                case LATENCY -> latency(t);
                case THREADS -> threads(t);
                case SLOW -> slow(t);
                case ISOLATION -> isolation(t);
                case STORM -> storm(t);
            };
            h.report("official-java", round, m);
        }
        System.exit(0);
    }

    private static ApiClient api(Harness.Target t) {
        ApiClient api = new ClientBuilder().setBasePath(t.server().toString()).build();
        api.setHttpClient(api.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build());
        return api;
    }

    private static SharedIndexInformer<V1Pod> informer(SharedInformerFactory factory, ApiClient api, String namespace) {
        GenericKubernetesApi<V1Pod, V1PodList> podApi =
                new GenericKubernetesApi<>(V1Pod.class, V1PodList.class, "", "v1", "pods", api);
        return namespace == null ? factory.sharedIndexInformerFor(podApi, V1Pod.class, 0)
                : factory.sharedIndexInformerFor(podApi, V1Pod.class, 0, namespace);
    }

    /** A handler that passes every notification's (newest) object to {@code seen}. */
    private static ResourceEventHandler<V1Pod> handler(Consumer<V1Pod> seen) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(V1Pod obj) {
                seen.accept(obj);
            }

            @Override
            public void onUpdate(V1Pod oldObj, V1Pod newObj) {
                seen.accept(newObj);
            }

            @Override
            public void onDelete(V1Pod obj, boolean deletedFinalStateUnknown) {
                seen.accept(obj);
            }
        };
    }

    private static void awaitSynced(SharedIndexInformer<?> informer, long start) {
        if (!awaitSynced(informer, start, Duration.ofMinutes(10))) {
            throw new IllegalStateException("not synced in 10 minutes");
        }
    }

    /** Whether {@code informer} synced within {@code deadline} of {@code start} (a {@link System#nanoTime()}). */
    private static boolean awaitSynced(SharedIndexInformer<?> informer, long start, Duration deadline) {
        while (!informer.hasSynced()) {
            if (System.nanoTime() - start > deadline.toNanos()) {
                return false;
            }
            LockSupport.parkNanos(1_000_000);
        }
        return true;
    }

    private static void close(SharedInformerFactory factory, ApiClient api) {
        factory.stopAllRegisteredInformers();
        api.getHttpClient().dispatcher().executorService().shutdown();
        api.getHttpClient().connectionPool().evictAll();
    }

    private static Map<String, Object> matrix(Harness h, Harness.Round round) throws Exception {
        Harness.Target t = round.target();
        long before = Harness.settledHeapAfterGc();
        PeakHeap peakHeap = PeakHeap.start();
        ApiClient api = api(t);
        SharedInformerFactory factory = new SharedInformerFactory(api);
        SharedIndexInformer<V1Pod> pods = informer(factory, api, null);
        Counters counters = new Counters(round.subscribers(), t.objects(), round.notifications());
        for (int s = 0; s < round.subscribers(); s++) {
            int handler = s;
            pods.addEventHandler(handler(p -> counters.count(handler)));
        }
        ProcessCost syncCost = ProcessCost.start();
        long start = System.nanoTime();
        factory.startAllRegisteredInformers();
        if (!awaitSynced(pods, start, Harness.syncDeadline())) {
            h.reportSyncTimeout("official-java", round);
        }
        long synced = System.nanoTime() - start;
        if (pods.getIndexer().list().size() != t.objects()) {
            throw new IllegalStateException("cache holds " + pods.getIndexer().list().size() + " of " + t.objects());
        }
        counters.awaitListed();
        long delivered = System.nanoTime() - start;
        Map<String, Object> syncPer = syncCost.per("sync", "object", t.objects());
        long peak = peakHeap.stop();
        long withCache = Harness.usedHeapAfterGc();
        int threads = Harness.liveThreads();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("synced_ms", synced / 1e6);
        m.put("listed_to_handlers_ms", delivered / 1e6);
        m.putAll(syncPer);
        if (round.watch()) {
            ProcessCost watchCost = ProcessCost.start();
            long watchStart = System.nanoTime();
            t.go(0, Integer.MAX_VALUE);
            counters.awaitAll();
            m.put("events_per_s", Math.round(t.notifications() / ((System.nanoTime() - watchStart) / 1e9)));
            m.putAll(watchCost.per("watch", "event", t.notifications()));
        }
        m.put("threads", threads);
        m.put("heap_growth_per_object", (withCache - before) / t.objects());
        m.put("heap_before_mb", before >> 20);
        m.put("sync_peak_heap_mb", (peak - before) >> 20);
        m.put("cached", pods.getIndexer().list().size());
        close(factory, api);
        t.dropWatches();
        return m;
    }

    private static Map<String, Object> latency(Harness.Target t) throws Exception {
        int count = Harness.latencyCount();
        int expected = t.notificationsIn(count);
        ApiClient api = api(t);
        SharedInformerFactory factory = new SharedInformerFactory(api);
        SharedIndexInformer<V1Pod> pods = informer(factory, api, null);
        Counters counters = new Counters(1, t.objects(), expected);
        Latencies latencies = new Latencies(expected);
        AtomicBoolean listed = new AtomicBoolean();
        pods.addEventHandler(handler(p -> {
            if (listed.get()) {
                latencies.record(p.getMetadata().getResourceVersion());
            }
            counters.count(0);
        }));
        factory.startAllRegisteredInformers();
        awaitSynced(pods, System.nanoTime());
        counters.awaitListed();
        listed.set(true);
        t.go(Harness.latencyRate(), count);
        counters.awaitAll();
        Map<String, Object> m = latencies.summary(t, Harness.LATENCY_DISCARD_MICROS);
        m.put("lat_rate", Harness.latencyRate());
        close(factory, api);
        return m;
    }

    private static Map<String, Object> threads(Harness.Target t) throws Exception {
        ApiClient api = api(t);
        int informers = Harness.informers();
        List<SharedInformerFactory> factories = new ArrayList<>();
        List<SharedIndexInformer<V1Pod>> all = new ArrayList<>();
        for (int i = 0; i < informers; i++) {
            SharedInformerFactory factory = new SharedInformerFactory(api);
            SharedIndexInformer<V1Pod> pods = informer(factory, api, "bench-" + i);
            pods.addEventHandler(handler(p -> { }));
            factories.add(factory);
            all.add(pods);
        }
        factories.forEach(SharedInformerFactory::startAllRegisteredInformers);
        long start = System.nanoTime();
        for (SharedIndexInformer<V1Pod> pods : all) {
            awaitSynced(pods, start);
        }
        Harness.settle();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("informers", informers);
        m.put("threads_informers", Harness.liveThreads());
        factories.forEach(SharedInformerFactory::stopAllRegisteredInformers);
        return m;
    }

    /** Its handlers as the official client runs them: a thread per handler. */
    private static Map<String, Object> isolation(Harness.Target t) throws Exception {
        IsolationRun run = new IsolationRun(t);
        ApiClient api = api(t);
        SharedInformerFactory factory = new SharedInformerFactory(api);
        SharedIndexInformer<V1Pod> pods = informer(factory, api, null);
        Counters counters = new Counters(run.handlers(), t.objects(), 0);
        for (int i = 0; i < run.handlers(); i++) {
            int handler = i;
            IsolationRun.Handler work = run.handler(i);
            pods.addEventHandler(handler(p -> {
                work.handle(p.getMetadata().getResourceVersion());
                counters.count(handler);
            }));
        }
        factory.startAllRegisteredInformers();
        awaitSynced(pods, System.nanoTime());
        counters.awaitListed();
        Map<String, Object> m = run.run();
        close(factory, api);
        return m;
    }

    /** Handlers added with {@code addEventHandler}, which replays the cache to each new handler. */
    private static Map<String, Object> storm(Harness.Target t) throws Exception {
        StormRun run = new StormRun(t);
        ApiClient api = api(t);
        SharedInformerFactory factory = new SharedInformerFactory(api);
        SharedIndexInformer<V1Pod> pods = informer(factory, api, null);
        Counters counters = new Counters(1, t.objects(), 0);
        Consumer<String> fast = run.fast();
        pods.addEventHandler(handler(p -> {
            fast.accept(p.getMetadata().getResourceVersion());
            counters.count(0);
        }));
        factory.startAllRegisteredInformers();
        awaitSynced(pods, System.nanoTime());
        counters.awaitListed();
        Map<String, Object> m = run.run((i, handler) -> pods.addEventHandler(
                handler(p -> handler.accept(p.getMetadata().getResourceVersion()))));
        close(factory, api);
        return m;
    }

    private static Map<String, Object> slow(Harness.Target t) throws Exception {
        SlowHandlerRun run = new SlowHandlerRun();
        ApiClient api = api(t);
        SharedInformerFactory factory = new SharedInformerFactory(api);
        SharedIndexInformer<V1Pod> pods = informer(factory, api, null);
        Counters counters = new Counters(1, t.objects(), 0);
        pods.addEventHandler(handler(p -> {
            run.work();
            counters.count(0);
        }));
        factory.startAllRegisteredInformers();
        awaitSynced(pods, System.nanoTime());
        counters.awaitListed();
        Map<String, Object> m = run.run(t);
        m.put("policy", "unbounded");
        close(factory, api);
        return m;
    }
}
