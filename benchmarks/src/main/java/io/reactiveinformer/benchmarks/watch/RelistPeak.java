package io.reactiveinformer.benchmarks.watch;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.benchmarks.sidebyside.Harness;
import io.reactiveinformer.benchmarks.sidebyside.PeakHeap;
import io.reactiveinformer.benchmarks.sidebyside.RelistPeakRounds;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.Encoding;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
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
 * <p>The rounds, settings and output are {@link RelistPeakRounds}'s. Requests may take 10 minutes: on a loaded
 * machine a LIST of 100,000 pods takes longer than the default minute.
 */
public final class RelistPeak {

    /**
     * LIST then watch, as every other contender (client-go with {@code WatchListClient} off): the replay server
     * serves no streaming list, and would answer one as a plain watch until its timeout.
     */
    private static final ReflectorOptions LIST = ReflectorOptions.defaults().withStreamingList(false);

    private static final Duration DEADLINE = Duration.ofMinutes(10);

    private RelistPeak() {
    }

    public static void main(String[] args) throws Exception {
        RelistPeakRounds.run("reactive-informer", RelistPeak::relist);
    }

    private static long[] relist(Harness.Target target, double changed) throws Exception {
        long baseline = Harness.settledHeapAfterGc();
        int n = target.objects();
        // JSON, as every contender of relist-peak.sh: the replay server's relist is JSON only
        KubernetesClient client = KubernetesClient.create(ClientConfig.forServer(target.server())
                .withRequestTimeout(DEADLINE).withEncoding(Encoding.JSON));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(LIST).build();
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
        RelistPeakRounds.expire(target, changed);
        pods.storeReached(RelistPeakRounds.relistResourceVersion(target)).block(DEADLINE);
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
        target.dropWatches();
        return new long[] {objects, retained, peakUsed, peakAfterGc, relistNanos};
    }
}
