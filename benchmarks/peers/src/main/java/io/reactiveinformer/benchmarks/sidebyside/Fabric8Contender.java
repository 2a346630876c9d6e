package io.reactiveinformer.benchmarks.sidebyside;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * fabric8 kubernetes-client: one pod informer across all namespaces (no resync) with
 * {@code SUBSCRIBERS} event handlers (the mode is {@link Harness.Mode}). Arguments:
 * {@code SERVER [SUBSCRIBERS [WARMUPS [ITERATIONS]]]}.
 */
public final class Fabric8Contender {

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
            h.report("fabric8", round, m);
        }
        System.exit(0);
    }

    private static KubernetesClient client(Harness.Target t) {
        return new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder().withMasterUrl(t.server().toString()).withNamespace(null)
                        .withRequestTimeout(600_000).withConnectionTimeout(10_000).build())
                .build();
    }

    /** A handler that passes every notification's (newest) object to {@code seen}. */
    private static ResourceEventHandler<Pod> handler(Consumer<Pod> seen) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod obj) {
                seen.accept(obj);
            }

            @Override
            public void onUpdate(Pod oldObj, Pod newObj) {
                seen.accept(newObj);
            }

            @Override
            public void onDelete(Pod obj, boolean deletedFinalStateUnknown) {
                seen.accept(obj);
            }
        };
    }

    private static Map<String, Object> matrix(Harness h, Harness.Round round) throws Exception {
        Harness.Target t = round.target();
        long before = Harness.settledHeapAfterGc();
        PeakHeap peakHeap = PeakHeap.start();
        KubernetesClient client = client(t);
        SharedIndexInformer<Pod> pods = client.pods().inAnyNamespace().runnableInformer(0);
        Counters counters = new Counters(round.subscribers(), t.objects(), round.notifications());
        for (int s = 0; s < round.subscribers(); s++) {
            int handler = s;
            pods.addEventHandler(handler(p -> counters.count(handler)));
        }
        ProcessCost syncCost = ProcessCost.start();
        long start = System.nanoTime();
        try {
            pods.start().toCompletableFuture().get(Harness.syncDeadline().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            h.reportSyncTimeout("fabric8", round);
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
        pods.close();
        client.close();
        t.dropWatches();
        return m;
    }

    private static Map<String, Object> latency(Harness.Target t) throws Exception {
        int count = Harness.latencyCount();
        int expected = t.notificationsIn(count);
        KubernetesClient client = client(t);
        SharedIndexInformer<Pod> pods = client.pods().inAnyNamespace().runnableInformer(0);
        Counters counters = new Counters(1, t.objects(), expected);
        Latencies latencies = new Latencies(expected);
        AtomicBoolean listed = new AtomicBoolean();
        pods.addEventHandler(handler(p -> {
            if (listed.get()) {
                latencies.record(p.getMetadata().getResourceVersion());
            }
            counters.count(0);
        }));
        pods.start().toCompletableFuture().get(10, TimeUnit.MINUTES);
        counters.awaitListed();
        listed.set(true);
        t.go(Harness.latencyRate(), count);
        counters.awaitAll();
        Map<String, Object> m = latencies.summary(t, Harness.LATENCY_DISCARD_MICROS);
        m.put("lat_rate", Harness.latencyRate());
        pods.close();
        client.close();
        return m;
    }

    private static Map<String, Object> threads(Harness.Target t) throws Exception {
        KubernetesClient client = client(t);
        int informers = Harness.informers();
        List<SharedIndexInformer<Pod>> all = new ArrayList<>();
        for (int i = 0; i < informers; i++) {
            SharedIndexInformer<Pod> pods = client.pods().inNamespace("bench-" + i).runnableInformer(0);
            pods.addEventHandler(handler(p -> { }));
            all.add(pods);
        }
        for (SharedIndexInformer<Pod> pods : all) {
            pods.start();
        }
        for (SharedIndexInformer<Pod> pods : all) {
            pods.start().toCompletableFuture().get(10, TimeUnit.MINUTES);
        }
        Harness.settle();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("informers", informers);
        m.put("threads_informers", Harness.liveThreads());
        all.forEach(SharedIndexInformer::close);
        client.close();
        return m;
    }

    /** Its handlers as fabric8 runs them: an informer's handlers one after another on one executor. */
    private static Map<String, Object> isolation(Harness.Target t) throws Exception {
        IsolationRun run = new IsolationRun(t);
        KubernetesClient client = client(t);
        SharedIndexInformer<Pod> pods = client.pods().inAnyNamespace().runnableInformer(0);
        Counters counters = new Counters(run.handlers(), t.objects(), 0);
        for (int i = 0; i < run.handlers(); i++) {
            int handler = i;
            IsolationRun.Handler work = run.handler(i);
            pods.addEventHandler(handler(p -> {
                work.handle(p.getMetadata().getResourceVersion());
                counters.count(handler);
            }));
        }
        pods.start().toCompletableFuture().get(10, TimeUnit.MINUTES);
        counters.awaitListed();
        Map<String, Object> m = run.run();
        pods.close();
        client.close();
        return m;
    }

    /** Handlers added with {@code addEventHandler}, which replays the cache to each new handler. */
    private static Map<String, Object> storm(Harness.Target t) throws Exception {
        StormRun run = new StormRun(t);
        KubernetesClient client = client(t);
        SharedIndexInformer<Pod> pods = client.pods().inAnyNamespace().runnableInformer(0);
        Counters counters = new Counters(1, t.objects(), 0);
        Consumer<String> fast = run.fast();
        pods.addEventHandler(handler(p -> {
            fast.accept(p.getMetadata().getResourceVersion());
            counters.count(0);
        }));
        pods.start().toCompletableFuture().get(10, TimeUnit.MINUTES);
        counters.awaitListed();
        Map<String, Object> m = run.run((i, handler) -> pods.addEventHandler(
                handler(p -> handler.accept(p.getMetadata().getResourceVersion()))));
        pods.close();
        client.close();
        return m;
    }

    private static Map<String, Object> slow(Harness.Target t) throws Exception {
        SlowHandlerRun run = new SlowHandlerRun();
        KubernetesClient client = client(t);
        SharedIndexInformer<Pod> pods = client.pods().inAnyNamespace().runnableInformer(0);
        Counters counters = new Counters(1, t.objects(), 0);
        pods.addEventHandler(handler(p -> {
            run.work();
            counters.count(0);
        }));
        pods.start().toCompletableFuture().get(10, TimeUnit.MINUTES);
        counters.awaitListed();
        Map<String, Object> m = run.run(t);
        m.put("policy", "unbounded");
        pods.close();
        client.close();
        return m;
    }
}
