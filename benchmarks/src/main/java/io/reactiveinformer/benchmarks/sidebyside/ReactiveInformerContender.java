package io.reactiveinformer.benchmarks.sidebyside;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.Encoding;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;

/**
 * This library: one shared pod informer over the HTTP client with {@code SUBSCRIBERS} unbounded
 * notification subscribers (the mode is {@link Harness.Mode}). Arguments:
 * {@code SERVER [SUBSCRIBERS [WARMUPS [ITERATIONS]]]}. In the slow-handler mode the subscriber has the
 * default options ({@code BufferPolicy.COALESCE}) unless {@code OUR_POLICY=unbounded}; its 500 ms of
 * work is a {@code concatMap} of a delay, the reactive form of a slow handler (a sleep would block a
 * shared delivery worker, which a Reactor handler must never do).
 */
public final class ReactiveInformerContender {

    /**
     * LIST then watch, as every other contender (client-go with {@code WatchListClient} off): the replay server
     * serves no streaming list, and would answer one as a plain watch until its timeout.
     */
    private static final ReflectorOptions LIST = ReflectorOptions.defaults().withStreamingList(false);

    public static void main(String[] args) throws Exception {
        Harness h = new Harness(args);
        for (Harness.Round round : h.rounds()) {
            Harness.Target t = round.target();
            switch (h.mode) {
                case MATRIX -> h.report("reactive-informer", round, matrix(h, round));
                case LATENCY -> h.report("reactive-informer", round, latency(t));
                case THREADS -> h.report("reactive-informer", round, threads(t));
                case ISOLATION -> h.report("reactive-informer", round, isolation(t));
                case STORM -> h.report("reactive-informer", round, storm(t));
                case SLOW -> {
                    boolean unbounded = "unbounded".equals(Harness.env("OUR_POLICY", "coalesce"));
                    h.report(unbounded ? "reactive-informer-unbounded" : "reactive-informer", round, slow(t, unbounded));
                }
            }
        }
        System.exit(0);
    }

    /**
     * Every round's client configuration, in the encoding {@code OUR_ENCODING} names ({@code JSON}, the default, or
     * {@code PROTOBUF}): the replay server answers protobuf to a client that asks for it first, as kube-apiserver
     * does, and protobuf is the client's default, so the {@code reactive-informer} row asks for JSON explicitly and
     * the {@code reactive-informer-protobuf} row of {@code run.sh} for protobuf.
     */
    private static ClientConfig config(Harness.Target t) {
        return ClientConfig.forServer(t.server())
                .withEncoding(Encoding.valueOf(System.getenv().getOrDefault("OUR_ENCODING", "JSON")));
    }

    private static Map<String, Object> matrix(Harness h, Harness.Round round) throws Exception {
        Harness.Target t = round.target();
        long before = Harness.settledHeapAfterGc();
        PeakHeap peakHeap = PeakHeap.start();
        KubernetesClient client = KubernetesClient.create(config(t));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(LIST).build();
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        // the FIFO keeps a key's newest update while the apply loop is behind: a handler is done once it
        // has seen the stream's last change (see Counters)
        Counters counters = new Counters(round.subscribers(), t.objects(), round.notifications(),
                round.watch() ? t.lastVersion(Integer.MAX_VALUE) : Long.MAX_VALUE);
        Disposable.Composite subscriptions = Disposables.composite();
        for (int s = 0; s < round.subscribers(); s++) {
            int handler = s;
            subscriptions.add(pods.notifications(SubscriberOptions.defaults().unbounded().withName("handler-" + s))
                    .subscribe(n -> counters.count(handler, object(n).getMetadata().getResourceVersion())));
        }
        ProcessCost syncCost = ProcessCost.start();
        long start = System.nanoTime();
        factory.start();
        if (!factory.waitForCacheSync().thenReturn(true).timeout(Harness.syncDeadline())
                .onErrorResume(TimeoutException.class, e -> Mono.just(false)).block()) {
            h.reportSyncTimeout("reactive-informer", round);
        }
        long synced = System.nanoTime() - start;
        if (pods.indexer().size() != t.objects()) {
            throw new IllegalStateException("cache holds " + pods.indexer().size() + " of " + t.objects());
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
            // how many of the stream's notifications the first handler was called with
            m.put("notified", counters.seen(0) - t.objects());
        }
        m.put("threads", threads);
        m.put("heap_growth_per_object", (withCache - before) / t.objects());
        m.put("heap_before_mb", before >> 20);
        m.put("sync_peak_heap_mb", (peak - before) >> 20);
        m.put("cached", pods.indexer().size());
        subscriptions.dispose();
        factory.shutdown().block(Duration.ofSeconds(30));
        client.close();
        t.dropWatches();
        return m;
    }

    private static Map<String, Object> latency(Harness.Target t) throws Exception {
        int count = Harness.latencyCount();
        int expected = t.notificationsIn(count);
        KubernetesClient client = KubernetesClient.create(config(t));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(LIST).build();
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        Counters counters = new Counters(1, t.objects(), expected, t.lastVersion(count));
        Latencies latencies = new Latencies(expected);
        Disposable subscription = pods.notifications(SubscriberOptions.defaults().unbounded().withName("handler"))
                .subscribe(n -> {
                    if (!(n instanceof Notification.Added<V1Pod> a && a.inInitialList())) {
                        latencies.record(object(n).getMetadata().getResourceVersion());
                    }
                    counters.count(0, object(n).getMetadata().getResourceVersion());
                });
        factory.start();
        factory.waitForCacheSync().block(Duration.ofMinutes(10));
        counters.awaitListed();
        t.go(Harness.latencyRate(), count);
        counters.awaitAll();
        Map<String, Object> m = latencies.summary(t, Harness.LATENCY_DISCARD_MICROS);
        m.put("lat_rate", Harness.latencyRate());
        subscription.dispose();
        factory.shutdown().block(Duration.ofSeconds(30));
        client.close();
        return m;
    }

    /**
     * As a user who writes the simple thing: plain {@code subscribe} with the work done synchronously in
     * the handler; default options for every subscriber, and the sleeping one declared blocking.
     */
    private static Map<String, Object> isolation(Harness.Target t) throws Exception {
        IsolationRun run = new IsolationRun(t);
        KubernetesClient client = KubernetesClient.create(config(t));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(LIST).build();
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        Counters counters = new Counters(run.handlers(), t.objects(), 0);
        Disposable.Composite subscriptions = Disposables.composite();
        for (int i = 0; i < run.handlers(); i++) {
            int handler = i;
            IsolationRun.Handler work = run.handler(i);
            subscriptions.add((i == run.sleepIndex() ? pods.notifications(SubscriberOptions.defaults().blocking())
                    : pods.notifications()).subscribe(n -> {
                        work.handle(object(n).getMetadata().getResourceVersion());
                        counters.count(handler);
                    }));
        }
        factory.start();
        factory.waitForCacheSync().block(Duration.ofMinutes(10));
        counters.awaitListed();
        Map<String, Object> m = run.run();
        subscriptions.dispose();
        factory.shutdown().block(Duration.ofSeconds(30));
        client.close();
        return m;
    }

    /** Handlers added with {@code notifications().subscribe}, default options, as a per-request endpoint would. */
    private static Map<String, Object> storm(Harness.Target t) throws Exception {
        StormRun run = new StormRun(t);
        KubernetesClient client = KubernetesClient.create(config(t));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(LIST).build();
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        Counters counters = new Counters(1, t.objects(), 0);
        Consumer<String> fast = run.fast();
        Disposable.Composite subscriptions = Disposables.composite();
        subscriptions.add(pods.notifications().subscribe(n -> {
            fast.accept(object(n).getMetadata().getResourceVersion());
            counters.count(0);
        }));
        factory.start();
        factory.waitForCacheSync().block(Duration.ofMinutes(10));
        counters.awaitListed();
        Map<String, Object> m = run.run((i, handler) -> subscriptions.add(pods.notifications()
                .subscribe(n -> handler.accept(object(n).getMetadata().getResourceVersion()))));
        subscriptions.dispose();
        factory.shutdown().block(Duration.ofSeconds(30));
        client.close();
        return m;
    }

    private static V1Pod object(Notification<V1Pod> n) {
        if (n instanceof Notification.Added<V1Pod> a) {
            return a.object();
        }
        if (n instanceof Notification.Updated<V1Pod> u) {
            return u.newObject();
        }
        return ((Notification.Deleted<V1Pod>) n).lastState();
    }

    private static Map<String, Object> threads(Harness.Target t) throws Exception {
        KubernetesClient client = KubernetesClient.create(config(t));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(LIST).build();
        Disposable.Composite subscriptions = Disposables.composite();
        int informers = Harness.informers();
        for (int i = 0; i < informers; i++) {
            subscriptions.add(factory.informer(InformerSpec.of(V1Pod.class).inNamespace("bench-" + i))
                    .notifications().subscribe(n -> { }));
        }
        factory.start();
        factory.waitForCacheSync().block(Duration.ofMinutes(10));
        Harness.settle();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("informers", informers);
        m.put("threads_informers", Harness.liveThreads());
        subscriptions.dispose();
        factory.shutdown().block(Duration.ofSeconds(30));
        client.close();
        return m;
    }

    private static Map<String, Object> slow(Harness.Target t, boolean unbounded) throws Exception {
        SlowHandlerRun run = new SlowHandlerRun();
        KubernetesClient client = KubernetesClient.create(config(t));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(LIST).build();
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        Counters counters = new Counters(1, t.objects(), 0);
        SubscriberOptions options = unbounded ? SubscriberOptions.defaults().unbounded() : SubscriberOptions.defaults();
        Disposable subscription = pods.notifications(options.withName("slow-handler"))
                .concatMap(n -> run.slow() ? Mono.delay(Duration.ofMillis(run.handlerMillis)).thenReturn(n) : Mono.just(n), 1)
                .subscribe(n -> {
                    counters.count(0);
                    run.handled();
                });
        factory.start();
        factory.waitForCacheSync().block(Duration.ofMinutes(10));
        counters.awaitListed();
        Map<String, Object> m = run.run(t);
        m.put("policy", options.policy().name().toLowerCase(java.util.Locale.ROOT));
        subscription.dispose();
        factory.shutdown().block(Duration.ofSeconds(30));
        client.close();
        return m;
    }
}
