package io.reactiveinformer.e2e.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.informer.HandlerRegistration;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.watch.ListerWatcher;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A slow subscriber delays only itself, on real threads (issue 12's scenario): beside one subscriber whose
 * handler spends {@value #CPU_MS} ms of CPU per notification and one declared-blocking subscriber whose
 * handler blocks {@value #BLOCK_MS} ms per notification, eight subscribers that do nothing are handed
 * every change within {@value #P99_MS} ms at p99 and {@value #MAX_MS} ms at worst, while
 * {@value #RATE} changes/s are written for {@value #SECONDS} s (after one second of the same writes to warm
 * up, not measured; longer if the server has not done {@link #minWrites()} by then).
 *
 * <p>Those bounds are what an idle 2-core machine gives (the side-by-side {@code isolation} phase of
 * {@code benchmarks/run.sh} measures it: p99 3 ms, max 27 ms); on a machine other processes load, every
 * thread of the JVM waits for a core and no absolute bound holds. What must hold everywhere is the
 * property: a fast subscriber never waits for the busy one's backlog. So a run whose fast subscribers miss
 * the bounds still passes when their p99 lag is under half, and their worst under all, of the CPU-bound
 * subscriber's backlog: its deepest buffer times the wall time its handler took per call, which the same
 * load stretches (seconds, even idle). Before issue 12, fast subscribers sharing its thread waited for that
 * whole backlog: p99 2.2 s on an idle machine, where the backlog was 2.2 s. The lag is measured from the moment the
 * test starts a write (its {@code System.nanoTime()} travels in the object) to the fast handler's call,
 * so it includes the server. The slow subscribers coalesce: their buffers never hold more than the keys.
 *
 * <p>Run once against the simulated server (its writes are cheap, so the lag is ours) and once against the
 * real kube-apiserver, whose own write latency is in the numbers and which, beside a handler burning a
 * core, sustains fewer writes on a 2-core machine: there the rate and bounds are its own
 * ({@link #rate()}, {@link #p99Millis()}, {@link #maxLagMillis()}).
 */
abstract class HandlerIsolationContract {

    private static final Logger log = LoggerFactory.getLogger(HandlerIsolationContract.class);

    static final int RATE = 500;
    static final int SECONDS = 10;
    static final int KEYS = 200;
    static final int FAST = 8;
    static final long CPU_MS = 10;
    static final long BLOCK_MS = 20;
    static final long P99_MS = 50;
    static final long MAX_MS = 200;
    /** A liveness bound on set-up, writes and convergence, not a speed claim: generous for a loaded machine. */
    private static final Duration DEADLINE = Duration.ofMinutes(5);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Keeps the busy loop from being optimized away. */
    private static final AtomicLong SPINS = new AtomicLong();

    private final Disposable.Composite running = Disposables.composite();
    private SharedInformerFactory factory;

    /** A client on the server under test; the namespace {@link #namespace()} exists. */
    abstract KubernetesClient client();

    abstract String namespace();

    /**
     * Writes {@code stampNanos} into ConfigMap {@code name}'s data {@code t}: through the client for the
     * real server; straight into the state for the simulated one, whose HTTP write path is not under test
     * and would otherwise add its own queueing to the measured lag (the informer still lists and watches
     * over HTTP).
     */
    abstract Mono<?> write(ResourceClient<V1ConfigMap> maps, String name, long stampNanos);

    /** Changes written per second. */
    int rate() {
        return RATE;
    }

    /**
     * Whether the lag counts from the write ({@code true}: the measure, server included) or from
     * the moment the informer received the change (the library's own pipeline only: FIFO, cache, fan-out,
     * delivery), for a server whose write latency on this machine would swamp what is measured.
     */
    boolean lagFromWrite() {
        return true;
    }

    /**
     * Writes the measurement needs at least, so that its percentiles mean something: when the server has
     * done fewer after {@link #SECONDS}, the writing goes on at the same pace until it has (within the
     * deadline). A loaded machine makes the test longer, not red.
     */
    int minWrites() {
        return RATE * SECONDS * 9 / 10;
    }

    private static V1ConfigMap stampReceived(V1ConfigMap map) {
        Map<String, String> data = new java.util.HashMap<>(map.getData() == null ? Map.of() : map.getData());
        data.put("r", Long.toString(System.nanoTime()));
        return map.data(data);
    }

    /** The bound on the fast subscribers' p99 lag. */
    long p99Millis() {
        return P99_MS;
    }

    /** The bound on the fast subscribers' worst lag. */
    long maxLagMillis() {
        return MAX_MS;
    }

    @AfterEach
    void stopInformers() {
        running.dispose();
        if (factory != null) {
            factory.shutdown().block(DEADLINE);
        }
    }

    @Test
    void fastSubscribersKeepUpBesideACpuBoundAndABlockingOne() {
        ResourceClient<V1ConfigMap> maps = client().resource(V1ConfigMap.class).inNamespace(namespace());
        StepVerifier.create(Flux.range(0, KEYS)
                        .flatMap(i -> maps.create(new V1ConfigMap().metadata(new V1ObjectMeta().name("iso-" + i))
                                .data(Map.of("t", "0"))), 16)
                        .then())
                .expectComplete().verify(DEADLINE);
        factory = SharedInformerFactory.builder(client()).build();
        // The transform runs when the informer receives a change: it stamps the time, for lagFromWrite() false.
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(namespace()).withTransform(HandlerIsolationContract::stampReceived));

        HandlerRegistration<V1ConfigMap> cpu = informer.register(SubscriberOptions.defaults().withName("cpu"));
        AtomicLong cpuHandled = new AtomicLong();
        AtomicLong cpuWallNanos = new AtomicLong();
        running.add(cpu.notifications().subscribe(n -> {
            long start = System.nanoTime();
            burnCpu(CPU_MS);
            cpuWallNanos.addAndGet(System.nanoTime() - start);
            cpuHandled.incrementAndGet();
        }));
        HandlerRegistration<V1ConfigMap> blocking = informer.register(
                SubscriberOptions.defaults().withName("blocking").blocking());
        // A handler that blocks (as one calling a blocking API would); declared, so it runs where blocking is allowed.
        AtomicLong blockingHandled = new AtomicLong();
        running.add(blocking.notifications().subscribe(n -> {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(BLOCK_MS));
            blockingHandled.incrementAndGet();
        }));
        List<Lags> fast = new ArrayList<>();
        List<NotificationLog<V1ConfigMap>> fastViews = new ArrayList<>();
        for (int i = 0; i < FAST; i++) {
            Lags lags = new Lags(lagFromWrite() ? "t" : "r");
            NotificationLog<V1ConfigMap> view = new NotificationLog<>();
            fast.add(lags);
            fastViews.add(view);
            running.add(informer.notifications(SubscriberOptions.defaults().withName("fast-" + i))
                    .subscribe(lags.andThen(view)));
        }
        factory.start();
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);

        // One second of the same writes first, not measured (stamp 0): JIT warm-up of the whole write and
        // watch path, as a benchmark's warm-up iterations.
        StepVerifier.create(Flux.interval(Duration.ofNanos(1_000_000_000L / rate()), Schedulers.parallel())
                        .take(rate()).onBackpressureDrop()
                        .flatMap(i -> write(maps, "iso-" + (i % KEYS), 0), 64).then())
                .expectComplete().verify(DEADLINE);
        AtomicLong issued = new AtomicLong();
        AtomicLong written = new AtomicLong();
        long writesStart = System.nanoTime();
        long writesEnd = writesStart + TimeUnit.SECONDS.toNanos(SECONDS);
        fast.forEach(l -> l.origin = writesStart);
        StepVerifier.create(Flux.interval(Duration.ofNanos(1_000_000_000L / rate()), Schedulers.parallel())
                        .onBackpressureDrop()
                        .takeWhile(i -> System.nanoTime() < writesEnd || issued.get() < minWrites())
                        .doOnNext(i -> issued.incrementAndGet())
                        .flatMap(i -> write(maps, "iso-" + (i % KEYS), System.nanoTime()), 64)
                        .doOnNext(m -> written.incrementAndGet())
                        .then())
                .expectComplete().verify(DEADLINE);
        long writeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - writesStart);
        StepVerifier.create(Flux.fromIterable(fastViews)
                        .concatMap(view -> Convergence.cacheMatchesList(view::view, ListerWatcher.of(maps), DEADLINE, Schedulers.parallel())))
                .expectComplete().verify(DEADLINE);

        long[] all = fast.stream().flatMapToLong(Lags::millis).sorted().toArray();
        long p50 = percentile(all, 0.50);
        long p99 = percentile(all, 0.99);
        long max = all[all.length - 1];
        long backlog = cpu.maxBufferDepth() * TimeUnit.NANOSECONDS.toMillis(cpuWallNanos.get())
                / Math.max(1, cpuHandled.get());
        log.info("slowest fast notifications (ms after the writes began → lag ms): {}",
                fast.stream().flatMap(Lags::slowest).sorted((a, b) -> Long.compare(b[1], a[1])).limit(10)
                        .map(a -> a[0] + "→" + a[1]).toList());
        log.info("{} writes at up to {}/s in {} ms: fast subscribers' lag p50 {} ms, p99 {} ms, max {} ms over {} notifications; "
                        + "cpu-bound subscriber handled {}, max buffer {} ({} ms of backlog); blocking one handled {}, max buffer {} ({} keys)",
                written.get(), rate(), writeMillis, p50, p99, max, all.length, cpuHandled.get(), cpu.maxBufferDepth(), backlog,
                blockingHandled.get(), blocking.maxBufferDepth(), KEYS);
        assertThat(p99).as("p99 lag of the fast subscribers (p50 %d, max %d), beside a busy one %d ms of backlog behind",
                p50, max, backlog).isLessThan(Math.max(p99Millis(), backlog / 2));
        assertThat(max).as("worst lag of the fast subscribers (p50 %d, p99 %d), beside a busy one %d ms of backlog behind",
                p50, p99, backlog).isLessThan(Math.max(maxLagMillis(), backlog));
        assertThat(cpu.maxBufferDepth()).as("the cpu-bound subscriber coalesces").isLessThanOrEqualTo(KEYS);
        assertThat(blocking.maxBufferDepth()).as("the blocking subscriber coalesces").isLessThanOrEqualTo(KEYS);
        if (written.get() > SECONDS * 1000 / CPU_MS) {
            assertThat(cpu.bufferDepth() + blocking.bufferDepth()).as("the slow subscribers still lag").isPositive();
        }
    }

    private static void burnCpu(long millis) {
        long until = THREADS.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        long spins = 0;
        while (THREADS.getCurrentThreadCpuTime() < until) {
            spins++;
        }
        SPINS.addAndGet(spins);
    }

    private static long percentile(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    /** Write-to-handler lag of every change after the initial list; thread-safe. */
    private static final class Lags implements Consumer<Notification<V1ConfigMap>> {

        private final String stamp;
        private long[] lags = new long[1024];
        private long[] at = new long[1024];
        private int size;
        volatile long origin;

        Lags(String stamp) {
            this.stamp = stamp;
        }

        @Override
        public void accept(Notification<V1ConfigMap> n) {
            long now = System.nanoTime();
            if (n instanceof Notification.Updated<V1ConfigMap> u && !u.isResync()) {
                if ("0".equals(u.newObject().getData().get("t"))) {
                    return; // warm-up
                }
                long written = Long.parseLong(u.newObject().getData().get(stamp));
                synchronized (this) {
                    if (size == lags.length) {
                        lags = Arrays.copyOf(lags, size * 2);
                        at = Arrays.copyOf(at, size * 2);
                    }
                    at[size] = written - origin;
                    lags[size++] = now - written;
                }
            }
        }

        /** (ms after the writes began, lag ms) of the ten slowest. */
        synchronized java.util.stream.Stream<long[]> slowest() {
            return java.util.stream.IntStream.range(0, size).boxed()
                    .sorted((a, b) -> Long.compare(lags[b], lags[a])).limit(10)
                    .map(i -> new long[] {TimeUnit.NANOSECONDS.toMillis(at[i]), TimeUnit.NANOSECONDS.toMillis(lags[i])})
                    .toList().stream();
        }

        synchronized java.util.stream.LongStream millis() {
            return Arrays.stream(lags, 0, size).map(TimeUnit.NANOSECONDS::toMillis);
        }
    }
}
