package io.reactiveinformer.benchmarks.watch;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.benchmarks.sidebyside.Harness;
import io.reactiveinformer.benchmarks.sidebyside.PeakHeap;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.InformerMetrics;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import reactor.core.Disposable;

/**
 * One round of {@code benchmarks/realistic-load.sh} for this library, in a JVM of its own: a pod informer
 * over a namespace of pods that Deployments own and kwok runs, from start to synced, then {@link #IDLE} with
 * nothing changing, then following the churn the script causes (a rollout that replaces every pod) until the
 * script says it has settled, and finally its cache compared with a fresh LIST. The churn is driven from outside so that every contender sees the
 * same kind of load and pays nothing for causing it.
 *
 * <p>Settings (system properties): {@code kubeconfig}, {@code context}, {@code namespace}; {@code ready}, a
 * file created once the cache has synced (the script starts the churn then); {@code stop}, a file the script
 * creates once the rollout has settled. Output: one CSV line on standard output with the columns of
 * {@link #COLUMNS}.
 */
public final class RealisticLoad {

    static final String COLUMNS = "pods,synced_ms,sync_cpu_ms,sync_peak_heap_mb,idle_cpu_ms,watch_events,notifications,"
            + "churn_s,events_per_s,peak_events_per_s,churn_cpu_ms,churn_jit_cpu_ms,churn_gc_cpu_ms,churn_peak_heap_mb,retained_mb,converged_ms,"
            + "relists,restarts,cache_equals_list";

    private static final Duration DEADLINE = Duration.ofMinutes(10);
    private static final Duration CONVERGENCE = Duration.ofSeconds(60);
    private static final int MAX_SECONDS = 3600;
    /** Before the churn: what the synced informer costs while nothing changes, to read the churn's CPU against. */
    private static final Duration IDLE = Duration.ofSeconds(10);

    private RealisticLoad() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--columns")) {
            System.out.println(COLUMNS);
            return;
        }
        ClientConfig config = ClientConfig.fromKubeconfig(
                List.of(Path.of(System.getProperty("kubeconfig"))), System.getProperty("context"));
        String namespace = System.getProperty("namespace");
        Path ready = Path.of(System.getProperty("ready"));
        Path stop = Path.of(System.getProperty("stop"));

        long baseline = Harness.settledHeapAfterGc();
        EventClock events = new EventClock();
        KubernetesClient client = KubernetesClient.create(config);
        SharedInformerFactory factory = SharedInformerFactory.builder(client)
                .metrics((name, gauges) -> events).build();
        SharedIndexInformer<V1Pod> pods = factory.informer(InformerSpec.of(V1Pod.class).inNamespace(namespace));
        AtomicLong notifications = new AtomicLong();
        // a handler that does nothing: what is measured is the informer's own work, every change delivered;
        // the initial list's adds may reach it after synced, and are not the churn's
        Disposable handler = pods.notifications(SubscriberOptions.defaults().unbounded().withName("counter"))
                .filter(n -> !(n instanceof Notification.Synced) && !(n instanceof Notification.Added<V1Pod> added
                        && added.inInitialList()))
                .subscribe(n -> notifications.incrementAndGet());

        PeakHeap syncHeap = PeakHeap.start();
        double cpu = Harness.cpuSeconds();
        long start = System.nanoTime();
        factory.start();
        factory.waitForCacheSync().block(DEADLINE);
        long synced = System.nanoTime();
        double syncedCpu = Harness.cpuSeconds();
        long syncPeak = syncHeap.stop() - baseline;
        int listed = pods.indexer().size();
        events.startCounting(synced);
        Thread.sleep(IDLE.toMillis());
        double idleCpu = Harness.cpuSeconds() - syncedCpu;

        PeakHeap churnHeap = PeakHeap.start();
        double churnStartCpu = Harness.cpuSeconds();
        // a cold JVM compiles its hot paths during the churn: the compilers' and the collector's share of it
        long[] jvmStart = jvmThreadsCpuMillis();
        Files.createFile(ready);
        while (!Files.exists(stop)) {
            Thread.sleep(100);
        }
        long churnPeak = churnHeap.stop() - baseline;
        double churnCpu = Harness.cpuSeconds() - churnStartCpu;
        long[] jvmEnd = jvmThreadsCpuMillis();

        long convergeStart = System.nanoTime();
        boolean equal = false;
        while (!equal && System.nanoTime() - convergeStart < CONVERGENCE.toNanos()) {
            equal = versions(pods).equals(client.resource(V1Pod.class).inNamespace(namespace).listAll(500)
                    .collectMap(pod -> pod.getMetadata().getName(), pod -> pod.getMetadata().getResourceVersion())
                    .block(DEADLINE));
            if (!equal) {
                Thread.sleep(200);
            }
        }
        long converged = (System.nanoTime() - convergeStart) / 1_000_000;
        handler.dispose();
        long retained = Harness.settledHeapAfterGc() - baseline;

        double window = events.windowSeconds();
        System.out.printf(Locale.ROOT, "%d,%d,%d,%.1f,%d,%d,%d,%.1f,%.0f,%d,%d,%d,%d,%.1f,%.1f,%d,%d,%d,%b%n", listed,
                (synced - start) / 1_000_000, Math.round((syncedCpu - cpu) * 1000), syncPeak / 1048576.0,
                Math.round(idleCpu * 1000), events.count(), notifications.get(), window,
                window > 0 ? events.count() / window : 0.0, events.peakPerSecond(), Math.round(churnCpu * 1000),
                jvmEnd[0] - jvmStart[0], jvmEnd[1] - jvmStart[1], churnPeak / 1048576.0, retained / 1048576.0, converged, events.relists.get(),
                events.restarts.get(), equal);
        factory.shutdown().block(DEADLINE);
        client.close();
        System.exit(0);
    }

    private static Map<String, String> versions(SharedIndexInformer<V1Pod> pods) {
        return pods.indexer().list().stream().collect(Collectors.toMap(pod -> pod.getMetadata().getName(),
                pod -> pod.getMetadata().getResourceVersion()));
    }

    /**
     * CPU time so far of the JVM's compiler threads and of its garbage collector's threads, from
     * {@code /proc/self/task} (they are no Java threads, so the ThreadMXBean does not see them). A compiler
     * thread that the JVM has retired meanwhile takes its time with it: the compilers' share is a lower bound.
     */
    private static long[] jvmThreadsCpuMillis() {
        long[] millis = new long[2];
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                String name;
                String[] stat;
                try {
                    name = Files.readString(task.resolve("comm")).strip();
                    String line = Files.readString(task.resolve("stat"));
                    // fields after the parenthesised name: state is field 3, utime 14 and stime 15
                    stat = line.substring(line.lastIndexOf(')') + 2).split(" ");
                } catch (IOException exited) {
                    continue;
                }
                int kind = name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler") ? 0
                        : name.startsWith("GC Thread") || name.startsWith("G1 ") ? 1 : -1;
                if (kind >= 0) {
                    // clock ticks of 10 ms (USER_HZ is 100 on Linux)
                    millis[kind] += (Long.parseLong(stat[11]) + Long.parseLong(stat[12])) * 10;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return millis;
    }

    /**
     * The watch events the informer receives after it has synced (bookmarks left out: they change nothing),
     * by second since then; the churn's window runs from the first to the last of them. A relist or a restarted
 * watch after the sync is counted too: under churn it would mean the informer fell behind the server.
     */
    private static final class EventClock implements InformerMetrics {

        private final AtomicLongArray perSecond = new AtomicLongArray(MAX_SECONDS);
        private final AtomicLong first = new AtomicLong(Long.MAX_VALUE);
        private final AtomicLong last = new AtomicLong();
        private final AtomicLong relists = new AtomicLong();
        private final AtomicLong restarts = new AtomicLong();
        private volatile long origin;
        private volatile boolean counting;

        void startCounting(long now) {
            origin = now;
            counting = true;
        }

        @Override
        public void event(WatchEvent.Type type) {
            if (!counting || type == WatchEvent.Type.BOOKMARK) {
                return;
            }
            long now = System.nanoTime();
            first.accumulateAndGet(now, Math::min);
            last.accumulateAndGet(now, Math::max);
            perSecond.incrementAndGet((int) Math.min(MAX_SECONDS - 1, (now - origin) / 1_000_000_000L));
        }

        long count() {
            long sum = 0;
            for (int i = 0; i < MAX_SECONDS; i++) {
                sum += perSecond.get(i);
            }
            return sum;
        }

        long peakPerSecond() {
            long peak = 0;
            for (int i = 0; i < MAX_SECONDS; i++) {
                peak = Math.max(peak, perSecond.get(i));
            }
            return peak;
        }

        double windowSeconds() {
            return first.get() == Long.MAX_VALUE ? 0 : (last.get() - first.get()) / 1e9;
        }

        @Override
        public void relisted(int objects) {
            if (counting) {
                relists.incrementAndGet();
            }
        }

        @Override
        public void restarted(KubernetesClientException error) {
            if (counting) {
                restarts.incrementAndGet();
            }
        }

        @Override
        public Runnable subscriberAdded(String subscriber, IntSupplier bufferDepth, LongSupplier lagNanos) {
            return () -> { };
        }
    }
}
