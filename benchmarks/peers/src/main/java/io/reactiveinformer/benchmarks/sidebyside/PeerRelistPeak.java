package io.reactiveinformer.benchmarks.sidebyside;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * {@code RelistPeak} (benchmarks module) for the JVM peers: the heap a relist takes with the store full. A pod informer
 * of fabric8 or of the official Java client syncs the N pods of a {@code ReplayServer}, its retained heap is read
 * after GC, then the server ends its watch with a 410 ({@code /expire}) and answers the relist with the same list in
 * which a fraction of the pods changed. Measured from the 410 until the informer's last synced resourceVersion is the
 * relist's and its one handler saw an update for every changed pod: the peak used heap before any collection and the
 * peak used heap right after one ({@link PeakHeap}), both above the baseline taken before the informer existed.
 *
 * <p>{@code contender} (a system property): {@code fabric8} or {@code official-java}. The rounds, the other settings
 * and the output are {@link RelistPeakRounds}'s.
 */
public final class PeerRelistPeak {

    private static final long DEADLINE_NANOS = TimeUnit.MINUTES.toNanos(10);

    /** One contender's informer, started, with one handler counting its updates in {@code updates}. */
    private record Informer(IntSupplier size, Supplier<String> lastSyncResourceVersion, AtomicLong updates,
                            Runnable stop) implements AutoCloseable {

        @Override
        public void close() {
            stop.run();
        }
    }

    private PeerRelistPeak() {
    }

    public static void main(String[] args) throws Exception {
        String contender = System.getProperty("contender");
        RelistPeakRounds.run(contender, (target, changed) -> relist(contender, target, changed));
        System.exit(0);
    }

    private static long[] relist(String contender, Harness.Target target, double changed) throws Exception {
        long baseline = Harness.settledHeapAfterGc();
        int n = target.objects();
        String server = target.server().toString();
        try (Informer pods = switch (contender) {
            case "fabric8" -> fabric8(server);
            case "official-java" -> official(server);
            default -> throw new IllegalArgumentException("contender: fabric8 or official-java, not " + contender);
        }) {
            await("cache holds " + n, () -> pods.size().getAsInt() == n);
            long retained = Harness.settledHeapAfterGc() - baseline;
            long updatesBefore = pods.updates().get();
            long expected = (long) Math.floor(n * changed);
            String relisted = RelistPeakRounds.relistResourceVersion(target);
            PeakHeap peak = PeakHeap.start();
            long start = System.nanoTime();
            RelistPeakRounds.expire(target, changed);
            await("relisted at " + relisted, () -> relisted.equals(pods.lastSyncResourceVersion().get())
                    && pods.updates().get() - updatesBefore >= expected);
            long relistNanos = System.nanoTime() - start;
            long peakUsed = peak.stop() - baseline;
            long peakAfterGc = peak.peakAfterGc() - baseline;
            int objects = pods.size().getAsInt();
            target.dropWatches();
            return new long[] {objects, retained, peakUsed, peakAfterGc, relistNanos};
        }
    }

    private static Informer fabric8(String server) {
        io.fabric8.kubernetes.client.KubernetesClient client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder().withMasterUrl(server).withNamespace(null)
                        .withRequestTimeout(600_000).withConnectionTimeout(10_000).build())
                .build();
        io.fabric8.kubernetes.client.informers.SharedIndexInformer<Pod> informer =
                client.pods().inAnyNamespace().runnableInformer(0);
        AtomicLong updates = new AtomicLong();
        informer.addEventHandler(new io.fabric8.kubernetes.client.informers.ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod obj) {
            }

            @Override
            public void onUpdate(Pod oldObj, Pod newObj) {
                updates.incrementAndGet();
            }

            @Override
            public void onDelete(Pod obj, boolean deletedFinalStateUnknown) {
            }
        });
        informer.start();
        return new Informer(() -> informer.getIndexer().list().size(), informer::lastSyncResourceVersion, updates, () -> {
            informer.close();
            client.close();
        });
    }

    private static Informer official(String server) {
        ApiClient api = new ClientBuilder().setBasePath(server).build();
        api.setHttpClient(api.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build());
        SharedInformerFactory factory = new SharedInformerFactory(api);
        io.kubernetes.client.informer.SharedIndexInformer<V1Pod> informer = factory.sharedIndexInformerFor(
                new GenericKubernetesApi<>(V1Pod.class, V1PodList.class, "", "v1", "pods", api), V1Pod.class, 0);
        AtomicLong updates = new AtomicLong();
        informer.addEventHandler(new io.kubernetes.client.informer.ResourceEventHandler<>() {
            @Override
            public void onAdd(V1Pod obj) {
            }

            @Override
            public void onUpdate(V1Pod oldObj, V1Pod newObj) {
                updates.incrementAndGet();
            }

            @Override
            public void onDelete(V1Pod obj, boolean deletedFinalStateUnknown) {
            }
        });
        factory.startAllRegisteredInformers();
        return new Informer(() -> informer.getIndexer().list().size(), informer::lastSyncResourceVersion, updates, () -> {
            factory.stopAllRegisteredInformers();
            api.getHttpClient().dispatcher().executorService().shutdown();
            api.getHttpClient().connectionPool().evictAll();
        });
    }

    /** Polls {@code condition} every millisecond, as the official client's own waitForCacheSync polls. */
    private static void await(String what, BooleanSupplier condition) {
        long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - start > DEADLINE_NANOS) {
                throw new IllegalStateException("not " + what + " within 10 minutes");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
