package io.reactiveinformer.benchmarks.sidebyside;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * fabric8 kubernetes-client: one pod informer across all namespaces (no resync) with
 * {@code SUBSCRIBERS} event handlers. Arguments: {@code SERVER [SUBSCRIBERS [WARMUPS [ITERATIONS]]]}.
 */
public final class Fabric8Contender {

    public static void main(String[] args) throws Exception {
        Harness h = new Harness(args);
        for (int round = 0; round < h.rounds(); round++) {
            long before = Harness.usedHeapAfterGc();
            KubernetesClient client = new KubernetesClientBuilder()
                    .withConfig(new ConfigBuilder().withMasterUrl(h.server.toString()).withNamespace(null)
                            .withRequestTimeout(600_000).withConnectionTimeout(10_000).build())
                    .build();
            SharedIndexInformer<Pod> pods = client.pods().inAnyNamespace().runnableInformer(0);
            Counters counters = new Counters(h.subscribers, h.objects, h.notifications);
            for (int s = 0; s < h.subscribers; s++) {
                int handler = s;
                pods.addEventHandler(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Pod obj) {
                        counters.count(handler);
                    }

                    @Override
                    public void onUpdate(Pod oldObj, Pod newObj) {
                        counters.count(handler);
                    }

                    @Override
                    public void onDelete(Pod obj, boolean deletedFinalStateUnknown) {
                        counters.count(handler);
                    }
                });
            }
            long start = System.nanoTime();
            pods.start().toCompletableFuture().get(10, TimeUnit.MINUTES);
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
            pods.close();
            client.close();
            pods = null;
            m.put("heap_bytes_per_object", (withCache - Harness.settledHeapAfterGc()) / h.objects);
            h.report("fabric8", round, m);
        }
        System.exit(0);
    }
}
