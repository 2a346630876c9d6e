package io.reactiveinformer.benchmarks.sidebyside;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import java.time.Duration;
import reactor.core.Disposable;
import reactor.core.Disposables;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * This library: one shared pod informer over the HTTP client with {@code SUBSCRIBERS} unbounded
 * notification subscribers. Arguments: {@code SERVER [SUBSCRIBERS [WARMUPS [ITERATIONS]]]}.
 */
public final class ReactiveInformerContender {

    public static void main(String[] args) throws Exception {
        Harness h = new Harness(args);
        for (int round = 0; round < h.rounds(); round++) {
            long before = Harness.usedHeapAfterGc();
            KubernetesClient client = KubernetesClient.create(ClientConfig.forServer(h.server));
            SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
            SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
            Counters counters = new Counters(h.subscribers, h.objects, h.notifications);
            Disposable.Composite subscriptions = Disposables.composite();
            for (int s = 0; s < h.subscribers; s++) {
                int handler = s;
                subscriptions.add(pods.notifications(SubscriberOptions.defaults().unbounded().withName("handler-" + s))
                        .subscribe(n -> counters.count(handler)));
            }
            long start = System.nanoTime();
            factory.start();
            factory.waitForCacheSync().block(Duration.ofMinutes(10));
            long synced = System.nanoTime() - start;
            if (pods.indexer().size() != h.objects) {
                throw new IllegalStateException("cache holds " + pods.indexer().size() + " of " + h.objects);
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
            m.put("cached", pods.indexer().size());
            subscriptions.dispose();
            factory.shutdown().block(Duration.ofSeconds(30));
            client.close();
            pods = null;
            factory = null;
            m.put("heap_bytes_per_object", (withCache - Harness.settledHeapAfterGc()) / h.objects);
            h.report("reactive-informer", round, m);
        }
        System.exit(0);
    }
}
