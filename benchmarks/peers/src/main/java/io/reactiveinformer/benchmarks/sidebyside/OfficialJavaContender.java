package io.reactiveinformer.benchmarks.sidebyside;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The official Java client's {@code SharedInformerFactory}: one pod informer across all namespaces (no
 * resync) with {@code SUBSCRIBERS} event handlers. Synced is polled every millisecond, as its own
 * {@code waitForCacheSync} polls. Arguments: {@code SERVER [SUBSCRIBERS [WARMUPS [ITERATIONS]]]}.
 */
public final class OfficialJavaContender {

    public static void main(String[] args) throws Exception {
        Harness h = new Harness(args);
        for (int round = 0; round < h.rounds(); round++) {
            long before = Harness.usedHeapAfterGc();
            ApiClient api = new ClientBuilder().setBasePath(h.server.toString()).build();
            api.setHttpClient(api.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build());
            SharedInformerFactory factory = new SharedInformerFactory(api);
            GenericKubernetesApi<V1Pod, V1PodList> podApi =
                    new GenericKubernetesApi<>(V1Pod.class, V1PodList.class, "", "v1", "pods", api);
            SharedIndexInformer<V1Pod> pods = factory.sharedIndexInformerFor(podApi, V1Pod.class, 0);
            Counters counters = new Counters(h.subscribers, h.objects, h.notifications);
            for (int s = 0; s < h.subscribers; s++) {
                int handler = s;
                pods.addEventHandler(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(V1Pod obj) {
                        counters.count(handler);
                    }

                    @Override
                    public void onUpdate(V1Pod oldObj, V1Pod newObj) {
                        counters.count(handler);
                    }

                    @Override
                    public void onDelete(V1Pod obj, boolean deletedFinalStateUnknown) {
                        counters.count(handler);
                    }
                });
            }
            long start = System.nanoTime();
            factory.startAllRegisteredInformers();
            long deadline = start + TimeUnit.MINUTES.toNanos(10);
            while (!pods.hasSynced()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("not synced in 10 minutes");
                }
                LockSupport.parkNanos(1_000_000);
            }
            long synced = System.nanoTime() - start;
            if (pods.getIndexer().list().size() != h.objects) {
                throw new IllegalStateException("cache holds " + pods.getIndexer().list().size() + " of " + h.objects);
            }
            counters.awaitListed();
            long delivered = System.nanoTime() - start;
            long withCache = Harness.usedHeapAfterGc();
            int threads = Harness.liveThreads();
            long watchStart = System.nanoTime();
            h.go(0);
            counters.awaitAll();
            long watched = System.nanoTime() - watchStart;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("synced_ms", synced / 1e6);
            m.put("listed_to_handlers_ms", delivered / 1e6);
            m.put("events_per_s", Math.round(h.notifications / (watched / 1e9)));
            m.put("threads", threads);
            m.put("heap_growth_per_object", (withCache - before) / h.objects);
            m.put("cached", pods.getIndexer().list().size());
            factory.stopAllRegisteredInformers();
            api.getHttpClient().dispatcher().executorService().shutdown();
            api.getHttpClient().connectionPool().evictAll();
            pods = null;
            factory = null;
            m.put("heap_bytes_per_object", (withCache - Harness.settledHeapAfterGc()) / h.objects);
            h.report("official-java", round, m);
        }
        System.exit(0);
    }
}
