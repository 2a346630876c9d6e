package io.reactiveinformer.examples;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.InformerMetrics;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Churn;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The main job: a shared pod informer that prints every notification and, every two seconds, a
 * one-line summary (objects cached, events per second, relists).
 *
 * <p>With {@code $KUBECONFIG} set it watches that cluster's pods in every namespace; without it, it
 * starts the test kit's simulated API server in-process and churns pods on it (create, update,
 * delete, 20 changes a second), so it runs on any machine.
 *
 * <p>Arguments: an optional ISO-8601 duration to run for (e.g. {@code PT30S}; default: until
 * interrupted), and {@code --quiet} to print only the summaries.
 */
public final class PodWatcher {

    private static final Duration SUMMARY_PERIOD = Duration.ofSeconds(2);

    private PodWatcher() {
    }

    public static void main(String[] args) throws InterruptedException {
        Duration runFor = null;
        boolean quiet = false;
        for (String arg : args) {
            if (arg.equals("--quiet")) {
                quiet = true;
            } else {
                runFor = Duration.parse(arg);
            }
        }

        Disposable.Composite resources = Disposables.composite();
        Counters counters = new Counters();
        SharedIndexInformer<V1Pod> pods = watch(connect(resources), quiet, System.out, Schedulers.parallel(), counters,
                resources);

        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "pod-watcher-shutdown"));
        if (runFor == null) {
            stop.await();
        } else {
            stop.await(runFor.toMillis(), TimeUnit.MILLISECONDS);
        }
        resources.dispose();
        System.out.println(counters.summary(pods));
    }

    /**
     * Starts a pod informer on {@code config} that prints to {@code out} every notification (unless
     * {@code quiet}), the sync and, every two seconds of {@code ticks}, a summary; whatever it starts is
     * added to {@code resources}, whose disposal stops it.
     */
    static SharedIndexInformer<V1Pod> watch(ClientConfig config, boolean quiet, PrintStream out, Scheduler ticks,
                                            Counters counters, Disposable.Composite resources) {
        KubernetesClient client = KubernetesClient.create(config);
        resources.add(client::close);
        SharedInformerFactory factory = SharedInformerFactory.builder(client).metrics(counters).build();
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        if (!quiet) {
            resources.add(pods.notifications().subscribe(n -> out.println(describe(n))));
        }
        factory.start();
        resources.add(factory::shutdown);
        // hasSynced is a Mono<Void>: it completes, it never emits
        resources.add(pods.hasSynced().subscribe(null,
                error -> out.println("not synced yet: " + error.getMessage()),
                () -> out.println("synced: " + pods.indexer().listKeys().size() + " pods cached")));
        resources.add(Flux.interval(SUMMARY_PERIOD, SUMMARY_PERIOD, ticks)
                .subscribe(tick -> out.println(counters.summary(pods))));
        return pods;
    }

    /** The cluster in {@code $KUBECONFIG}, else a simulated API server with pods churning on it. */
    private static ClientConfig connect(Disposable.Composite resources) {
        String kubeconfig = System.getenv("KUBECONFIG");
        if (kubeconfig != null && !kubeconfig.isBlank()) {
            ClientConfig config = ClientConfig.fromKubeconfig();
            System.out.println("watching pods on " + config.server() + " (from $KUBECONFIG)");
            return config;
        }
        ClusterState state = ClusterState.create();
        SimulatedApiServer server = SimulatedApiServer.start(state);
        resources.add(server::close);
        Churn churn = new Churn(state, ResourceType.of(V1Pod.class), "default", 42);
        churn.run(50);
        resources.add(churn.every(Duration.ofMillis(50), Integer.MAX_VALUE).subscribe());
        System.out.println("no $KUBECONFIG: watching pods on an embedded simulated API server at " + server.url()
                + ", churning 20 changes a second");
        return server.clientConfig();
    }

    private static String describe(Notification<V1Pod> notification) {
        if (notification instanceof Notification.Added<V1Pod> added) {
            return "ADDED    " + added.key() + (added.inInitialList() ? " (initial list)" : "");
        }
        if (notification instanceof Notification.Updated<V1Pod> updated) {
            return "UPDATED  " + updated.key() + " rv " + updated.oldObject().getMetadata().getResourceVersion()
                    + " -> " + updated.newObject().getMetadata().getResourceVersion()
                    + (updated.isResync() ? " (resync)" : "");
        }
        Notification.Deleted<V1Pod> deleted = (Notification.Deleted<V1Pod>) notification;
        return "DELETED  " + deleted.key() + (deleted.finalStateUnknown() ? " (final state unknown)" : "");
    }

    /** Counts events and relists through the informer's metrics interface. */
    static final class Counters implements InformerMetrics, InformerMetrics.Provider {

        private final LongAdder events = new LongAdder();
        private final LongAdder relists = new LongAdder();
        private final LongAdder restarts = new LongAdder();
        private long lastEvents;
        private long lastNanos = System.nanoTime();

        @Override
        public InformerMetrics register(String informerName, Gauges gauges) {
            return this;
        }

        @Override
        public void event(WatchEvent.Type type) {
            events.increment();
        }

        @Override
        public void relisted(int objects) {
            relists.increment();
        }

        @Override
        public void restarted(KubernetesClientException error) {
            restarts.increment();
        }

        @Override
        public Runnable subscriberAdded(String subscriber, IntSupplier bufferDepth, LongSupplier lagNanos) {
            return () -> { };
        }

        /** Called from the summary timer, then once from main after it is disposed: no lock needed. */
        String summary(SharedIndexInformer<V1Pod> pods) {
            long now = System.nanoTime();
            long total = events.sum();
            double seconds = Math.max(1e-9, (now - lastNanos) / 1e9);
            double rate = (total - lastEvents) / seconds;
            lastEvents = total;
            lastNanos = now;
            return String.format("summary: %d pods cached, %.1f events/s, %d events, %d lists, %d restarts, rv %s",
                    pods.indexer().listKeys().size(), rate, total, relists.sum(), restarts.sum(),
                    pods.lastSyncResourceVersion());
        }
    }
}
