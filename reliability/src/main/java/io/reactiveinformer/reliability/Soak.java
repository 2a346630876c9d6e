package io.reactiveinformer.reliability;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.InformerMetrics;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.watch.ListerWatcher;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The soak: 20 informers with 50 subscribers follow a steady churn against the test environment's
 * kube-apiserver while real faults hit it every few seconds, for as long as asked (an hour by default).
 *
 * <p>Every cycle (30 s) churns with faults, then pauses the churn, requires every cache and every
 * subscriber's view to equal a fresh LIST of its scope within 2 minutes, and samples the JVM: heap after a full
 * GC, live threads, TCP connections to the apiserver, the subscribers' buffered notifications. The samples
 * go to {@code soak.csv} and {@code soak.png}, the verdict to {@code soak.md}: pass when every check
 * converged, no informer died and every sampled series is flat after a warm-up (its least-squares slope
 * moves it by less than 10 % of its mean, or by less than 3 for small counts, over the run).
 *
 * <p>With {@code --control-plane} it runs on an environment with the rest of a control plane
 * ({@link KubeApiServer#startOrAttachControlPlane()}): kube-controller-manager and kube-scheduler are restarted
 * and killed among the other faults, and a Deployment of kwok-run pods is scaled between 0 and 200 after every
 * fault (back to 100 before each check), its pods and ReplicaSets followed by three more informers.
 *
 * <p>Usage: {@code Soak [--control-plane] [MINUTES [RATE [OUT_DIR [SEED]]]]}, default 60 minutes, 1,000
 * changes/s (the report says what the server sustained), {@code reliability/results/soak}. Attaches to the
 * environment {@code REACTIVE_INFORMER_KUBECONFIG} (with a control plane:
 * {@code REACTIVE_INFORMER_CONTROL_PLANE_KUBECONFIG}) names, else starts one. Started by {@code reliability/soak.sh}.
 *
 * <p>Blocks its main thread (it is a program): informers, writers and checks run on Reactor's schedulers.
 */
public final class Soak {

    private static final Duration CYCLE = Duration.ofSeconds(30);
    /** Two minutes: with the default backoff a reflector that met outage after outage retries up to 60 s apart. */
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final int NAMESPACES = 4;
    private static final int SLOTS_PER_NAMESPACE = 500;
    /** The Deployment's size at each check, and twice its most. */
    private static final int PODS_AT_CHECK = 100;

    /** One informer, or one subscriber's view, and the LIST it must equal. */
    private record Target<T extends KubernetesObject>(String name, Supplier<? extends List<? extends T>> holds,
                                                      ListerWatcher<T> server) {
    }

    private final KubeApiServer env;
    private final SplittableRandom random;
    /** Compactions count twice: they are the fault that makes every informer relist. */
    private final List<ProcessFault> faultKinds = new ArrayList<>();
    private final List<Target<?>> targets = new ArrayList<>();
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private final Map<String, IntSupplier> buffers = new ConcurrentHashMap<>();
    private final AtomicLong relists = new AtomicLong();
    private final AtomicLong restarts = new AtomicLong();
    private final AtomicLong scalesRefused = new AtomicLong();
    private final Map<String, AtomicLong> recoveries = new ConcurrentHashMap<>();
    private final Map<String, Integer> faults = new TreeMap<>();
    private final List<SoakSample> samples = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private long worstCheckMillis;

    private Soak(KubeApiServer env, long seed) {
        this.env = env;
        this.random = new SplittableRandom(seed);
        faultKinds.addAll(ProcessFault.OF_STORAGE);
        faultKinds.add(ProcessFault.COMPACTION);
        if (env.hasControlPlane()) {
            faultKinds.addAll(ProcessFault.OF_CONTROL_PLANE);
        }
    }

    public static void main(String[] options) throws IOException {
        boolean controlPlane = options.length > 0 && options[0].equals("--control-plane");
        String[] args = controlPlane ? Arrays.copyOfRange(options, 1, options.length) : options;
        Duration length = Duration.ofMinutes(args.length > 0 ? Long.parseLong(args[0]) : 60);
        int rate = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        Path out = Path.of(args.length > 2 ? args[2] : "reliability/results/soak");
        long seed = args.length > 3 ? Long.parseLong(args[3]) : 1;
        Files.createDirectories(out);
        boolean pass;
        try (KubeApiServer env = controlPlane ? KubeApiServer.startOrAttachControlPlane() : KubeApiServer.startOrAttach()) {
            Soak soak = new Soak(env, seed);
            String report = soak.run(length, rate, out);
            System.out.println(report);
            pass = report.contains("**Verdict: pass**");
        }
        System.exit(pass ? 0 : 1);
    }

    private KubernetesClient client() {
        return KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"));
    }

    private String run(Duration length, int rate, Path out) throws IOException {
        Instant started = Instant.now();
        try (KubernetesClient admin = client(); KubernetesClient first = client(); KubernetesClient second = client()) {
            String run = "soak-" + Long.toString(random.nextLong(1L << 40), 36);
            List<String> namespaces = new ArrayList<>();
            for (int i = 0; i < NAMESPACES; i++) {
                String ns = run + "-" + i;
                admin.resource(V1Namespace.class).create(new V1Namespace().apiVersion("v1").kind("Namespace")
                        .metadata(new V1ObjectMeta().name(ns))).block(DEADLINE);
                namespaces.add(ns);
            }
            SoakWriter writer = new SoakWriter(admin, namespaces, SLOTS_PER_NAMESPACE, rate, 64);
            Disposable.Composite subscriptions = Disposables.composite();
            SharedInformerFactory a = factory(first);
            SharedInformerFactory b = factory(second);
            Deployed deployed = env.hasControlPlane() ? deploy(admin, run, subscriptions, a, b) : null;
            ResourceClient<V1ConfigMap> maps = admin.resource(V1ConfigMap.class).inAnyNamespace();
            for (String ns : namespaces) {
                follow(subscriptions, a, InformerSpec.of(V1ConfigMap.class).inNamespace(ns), ListerWatcher.of(maps.inNamespace(ns)));
                follow(subscriptions, a, InformerSpec.of(V1ConfigMap.class).inNamespace(ns).withLabelSelector("half=a"),
                        ListerWatcher.of(maps.inNamespace(ns).withLabelSelector("half=a")));
                follow(subscriptions, b, InformerSpec.metadataOnly(V1ConfigMap.class).inNamespace(ns),
                        ListerWatcher.of(maps.inNamespace(ns).metadataOnly()));
                follow(subscriptions, b, InformerSpec.of(V1ConfigMap.class).inNamespace(ns).withLabelSelector("half=b"),
                        ListerWatcher.of(maps.inNamespace(ns).withLabelSelector("half=b")));
            }
            follow(subscriptions, a, InformerSpec.metadataOnly(V1ConfigMap.class), ListerWatcher.of(maps.metadataOnly()));
            follow(subscriptions, b, InformerSpec.of(V1ConfigMap.class).withLabelSelector("soak=true"),
                    ListerWatcher.of(maps.withLabelSelector("soak=true")));
            SharedIndexInformer<V1ConfigMap> allA = follow(subscriptions, a, InformerSpec.of(V1ConfigMap.class),
                    ListerWatcher.of(maps));
            SharedIndexInformer<V1ConfigMap> allB = follow(subscriptions, b, InformerSpec.of(V1ConfigMap.class)
                    .withLabelSelector("half=a"), ListerWatcher.of(maps.withLabelSelector("half=a")));
            for (SharedIndexInformer<V1ConfigMap> all : List.of(allA, allB)) {
                ListerWatcher<V1ConfigMap> server = all == allA ? ListerWatcher.of(maps) : ListerWatcher.of(maps.withLabelSelector("half=a"));
                subscribe(subscriptions, all, "BOUNDED(4096), resubscribes after overflow",
                        SubscriberOptions.defaults().bounded(4096), server, false, false);
                subscribe(subscriptions, all, "slow (2 ms per notification)", SubscriberOptions.defaults(), server, true, false);
                subscribe(subscriptions, all, "throwing (one update in 1,000, resubscribes)", SubscriberOptions.defaults(), server,
                        false, true);
                subscribe(subscriptions, all, "UNBOUNDED, second", SubscriberOptions.defaults().unbounded(), server, false, false);
                subscribe(subscriptions, all, "COALESCE, second", SubscriberOptions.defaults(), server, false, false);
            }
            a.start();
            b.start();
            a.waitForCacheSync().then(b.waitForCacheSync()).block(DEADLINE);

            int port = env.serverUrl().getPort();
            long deadline = System.nanoTime() + length.toNanos();
            long lastMade = 0;
            while (System.nanoTime() < deadline) {
                long cycleStart = System.nanoTime();
                writer.resume();
                while (System.nanoTime() - cycleStart < CYCLE.toNanos()) {
                    Mono.delay(Duration.ofMillis(3_000 + random.nextInt(7_000))).block();
                    ProcessFault fault = faultKinds.get(random.nextInt(faultKinds.size()));
                    inject(fault);
                    if (deployed != null) {
                        deployed.scale(random.nextInt(2 * PODS_AT_CHECK + 1));
                    }
                }
                writer.pause();
                if (deployed != null) {
                    deployed.scale(PODS_AT_CHECK);
                }
                double churnSeconds = (System.nanoTime() - cycleStart) / 1e9;
                long checkMillis = check(samples.size() + 1);
                long made = writer.made();
                samples.add(sample(started, port, made, (made - lastMade) / churnSeconds, writer, checkMillis));
                lastMade = made;
                System.err.println(samples.get(samples.size() - 1).csv());
            }
            subscriptions.dispose();
            List<String> dead = informers.stream().filter(i -> i.isStopped() || !i.isStarted()).map(SharedIndexInformer::name).toList();
            a.shutdown().then(b.shutdown()).block(DEADLINE);
            if (deployed != null) {
                namespaces.add(deployed.namespace());
            }
            for (String ns : namespaces) {
                admin.resource(V1Namespace.class).delete(ns).onErrorResume(e -> Mono.empty()).block(DEADLINE);
            }
            SoakSample.writeCsv(samples, out.resolve("soak.csv"));
            SoakChart.write(samples, out.resolve("soak.png"));
            String report = report(length, rate, started, dead);
            Files.writeString(out.resolve("soak.md"), report);
            return report;
        }
    }

    /**
     * Injects {@code fault}. A component that is not back within the hook's timeout (an overloaded machine:
     * etcd answers too slowly for the apiserver's readiness) is not the library's failure: it is counted
     * apart, whatever was stopped is started, and the soak goes on; the checks then say whether the
     * informers coped.
     */
    private void inject(ProcessFault fault) {
        try {
            fault.inject(env);
            faults.merge(fault.label, 1, Integer::sum);
            System.err.println(Instant.now() + " fault: " + fault.label);
        } catch (IllegalStateException slowToComeBack) {
            faults.merge(fault.label + " (a component came back late)", 1, Integer::sum);
            System.err.println(Instant.now() + " fault: " + fault.label + ", a component came back late: "
                    + slowToComeBack.getMessage().lines().findFirst().orElse(""));
            startAll();
        }
    }

    /** Starts what is not running (a hook returns at once for a component that runs, ready or not). */
    private void startAll() {
        env.startEtcd();
        env.startApiServer();
        if (env.hasControlPlane()) {
            env.startControllerManager();
            env.startScheduler();
        }
    }

    /** The Deployment the control plane's controllers and kwok's nodes run, and how often scaling it was refused. */
    private record Deployed(ResourceClient<V1Deployment> deployments, String namespace, AtomicLong refused) {

        static final String NAME = "soak";

        /** Sets its replicas; a refusal (an apiserver fault in progress) is counted, not retried. */
        void scale(int replicas) {
            deployments.patch(NAME, PatchType.MERGE, "{\"spec\":{\"replicas\":" + replicas + "}}")
                    .onErrorResume(KubernetesClientException.class, e -> {
                        refused.incrementAndGet();
                        return Mono.empty();
                    })
                    .block(DEADLINE);
        }
    }

    /**
     * A namespace with a Deployment of {@link #PODS_AT_CHECK} pods (one container each, an image that kwok's nodes
     * never pull), followed by informers of its pods (whole and metadata-only) and of its ReplicaSets.
     */
    private Deployed deploy(KubernetesClient admin, String run, Disposable.Composite subscriptions,
                            SharedInformerFactory a, SharedInformerFactory b) {
        String namespace = run + "-pods";
        admin.resource(V1Namespace.class).create(new V1Namespace().apiVersion("v1").kind("Namespace")
                .metadata(new V1ObjectMeta().name(namespace))).block(DEADLINE);
        Map<String, String> labels = Map.of("app", Deployed.NAME);
        ResourceClient<V1Deployment> deployments = admin.resource(V1Deployment.class).inNamespace(namespace);
        deployments.create(new V1Deployment().apiVersion("apps/v1").kind("Deployment")
                .metadata(new V1ObjectMeta().name(Deployed.NAME))
                .spec(new V1DeploymentSpec().replicas(PODS_AT_CHECK)
                        .selector(new V1LabelSelector().matchLabels(labels))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                                .spec(new V1PodSpec().containers(List.of(
                                        new V1Container().name("app").image("example.invalid/app:1"))))))).block(DEADLINE);
        ResourceClient<V1Pod> pods = admin.resource(V1Pod.class).inNamespace(namespace);
        follow(subscriptions, a, InformerSpec.of(V1Pod.class).inNamespace(namespace), ListerWatcher.of(pods));
        follow(subscriptions, b, InformerSpec.metadataOnly(V1Pod.class).inNamespace(namespace),
                ListerWatcher.of(pods.metadataOnly()));
        follow(subscriptions, b, InformerSpec.of(V1ReplicaSet.class).inNamespace(namespace),
                ListerWatcher.of(admin.resource(V1ReplicaSet.class).inNamespace(namespace)));
        return new Deployed(deployments, namespace, scalesRefused);
    }

    /** Default options, as an application would run them; the metrics are only read for the samples. */
    private SharedInformerFactory factory(KubernetesClient client) {
        return SharedInformerFactory.builder(client).metrics((informer, gauges) -> new InformerMetrics() {
            @Override
            public void event(WatchEvent.Type type) {
            }

            @Override
            public void relisted(int objects) {
                relists.incrementAndGet();
            }

            @Override
            public void restarted(KubernetesClientException error) {
                restarts.incrementAndGet();
            }

            @Override
            public Runnable subscriberAdded(String subscriber, IntSupplier bufferDepth, LongSupplier lagNanos) {
                String key = informer + "/" + subscriber + "#" + System.identityHashCode(bufferDepth);
                buffers.put(key, bufferDepth);
                return () -> buffers.remove(key);
            }
        }).build();
    }

    /** An informer with a COALESCE and an UNBOUNDED subscriber; all three are checked against {@code server}. */
    private <T extends KubernetesObject> SharedIndexInformer<T> follow(Disposable.Composite subscriptions,
                                                                      SharedInformerFactory factory, InformerSpec<T> spec,
                                                                      ListerWatcher<T> server) {
        SharedIndexInformer<T> informer = factory.informer(spec);
        informers.add(informer);
        targets.add(new Target<>("informer " + informer.name(), informer.indexer()::list,
                RealEnvironmentFaults.listsThroughOutages(server)));
        subscribe(subscriptions, informer, "COALESCE", SubscriberOptions.defaults(), server, false, false);
        subscribe(subscriptions, informer, "UNBOUNDED", SubscriberOptions.defaults().unbounded(), server, false, false);
        return informer;
    }

    /**
     * A subscriber and its view. A slow one takes 2 ms per notification without blocking a thread; a
     * throwing one fails on about one update in 1,000 and, as an application would, resubscribes (starting over
     * from the cache), as does a BOUNDED one whose buffer overflowed.
     */
    private <T extends KubernetesObject> void subscribe(Disposable.Composite subscriptions, SharedIndexInformer<T> informer,
                                                       String name, SubscriberOptions options, ListerWatcher<T> server,
                                                       boolean slow, boolean throwing) {
        SubscriberView<T> view = new SubscriberView<>(name);
        // live updates only: a resubscription's replay is all Added, so it cannot fail again at once
        subscriptions.add(view.follow(informer, options, slow, n -> throwing && n instanceof Notification.Updated<T>
                && ThreadLocalRandom.current().nextInt(1000) == 0, recoveries));
        targets.add(new Target<>("subscriber " + name + " of " + informer.name(), view::objects,
                RealEnvironmentFaults.listsThroughOutages(server)));
    }

    /**
     * Every target against fresh LISTs of its scope, all at once, within {@link #DEADLINE}; answers how long
     * the slowest took. A target still behind at the deadline is reported with what differed.
     */
    private long check(int cycle) {
        long start = System.nanoTime();
        Map<String, String> behind = Flux.fromIterable(targets)
                .flatMap(target -> converges(target).filter(difference -> !difference.isEmpty())
                        .map(difference -> Map.entry(target.name(), difference)), targets.size())
                .collectMap(Map.Entry::getKey, Map.Entry::getValue, TreeMap::new)
                // bounded here too, in case a check's own timer never fires
                .block(DEADLINE.plusSeconds(30));
        long millis = (System.nanoTime() - start) / 1_000_000;
        worstCheckMillis = Math.max(worstCheckMillis, millis);
        if (behind == null || !behind.isEmpty()) {
            String failure = "cycle " + cycle + ": " + (behind == null ? "the check never ended"
                    : behind.size() + " of " + targets.size() + " targets behind: " + String.join(", ", behind.keySet()));
            failures.add(failure);
            System.err.println(Instant.now() + " FAILED " + failure);
            if (behind != null) {
                behind.forEach((target, difference) -> System.err.println("  " + target + ": " + abbreviate(difference)));
            }
            informers.forEach(i -> System.err.println("  " + i.health()));
        }
        return millis;
    }

    /** Empty once the target equals a LIST; else, at the deadline, what differed. */
    private static <T extends KubernetesObject> Mono<String> converges(Target<T> target) {
        return Convergence.cacheMatchesList(target.holds(), target.server(), DEADLINE, Duration.ofMillis(250),
                        Schedulers.parallel())
                .thenReturn("")
                .onErrorResume(AssertionError.class, e -> Mono.just(String.valueOf(e.getMessage())));
    }

    private static String abbreviate(String text) {
        return text.length() <= 400 ? text : text.substring(0, 400) + "...";
    }

    private SoakSample sample(Instant started, int port, long made, double rate, SoakWriter writer, long checkMillis) {
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        int depthSum = 0;
        int depthMax = 0;
        for (IntSupplier depth : buffers.values()) {
            int d = depth.getAsInt();
            depthSum += d;
            depthMax = Math.max(depthMax, d);
        }
        long cached = informers.stream().mapToLong(i -> i.indexer().list().size()).sum();
        return new SoakSample(Duration.between(started, Instant.now()).toSeconds(), heap / (1024.0 * 1024.0),
                ManagementFactory.getThreadMXBean().getThreadCount(), connections(port), depthSum, depthMax, cached, made,
                rate, writer.refused(), faults.values().stream().mapToInt(Integer::intValue).sum(), checkMillis,
                failures.size(), relists.get(), restarts.get());
    }

    /** This JVM's established TCP connections to {@code port}: its sockets ({@code /proc/self/fd}) found in the TCP tables. */
    private static int connections(int port) {
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor was closed while listed
                }
            }
            int count = 0;
            for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
                List<String> lines = Files.readAllLines(Path.of(table));
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    int remotePort = Integer.parseInt(f[2].substring(f[2].indexOf(':') + 1), 16);
                    if (remotePort == port && "01".equals(f[3]) && inodes.contains(f[9])) {
                        count++;
                    }
                }
            }
            return count;
        } catch (IOException e) {
            return -1;
        }
    }

    private String report(Duration length, int rate, Instant started, List<String> dead) {
        List<SoakSample> steady = SoakSample.afterWarmUp(samples);
        StringBuilder b = new StringBuilder();
        long seconds = Duration.between(started, Instant.now()).toSeconds();
        long made = samples.isEmpty() ? 0 : samples.get(samples.size() - 1).changes();
        double churnRate = samples.stream().mapToDouble(SoakSample::changesPerSecond).average().orElse(0);
        b.append("# Soak run\n\n")
                .append("- finished: ").append(Instant.now()).append(", ").append(seconds).append(" s (asked: ")
                .append(length.toMinutes()).append(" min)\n")
                .append("- against: kube-apiserver ").append(env.kubernetesVersion()).append(" and etcd of the test environment, ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores shared by both and this JVM\n")
                .append("- churn: ConfigMaps in ").append(NAMESPACES).append(" namespaces, a level population of about ")
                .append((int) (NAMESPACES * SLOTS_PER_NAMESPACE * 0.77)).append(" objects; target ").append(rate)
                .append(" changes/s, sustained ").append(String.format(Locale.ROOT, "%.0f", churnRate))
                .append(" changes/s on average while churning (").append(made).append(" changes made, ")
                .append(samples.isEmpty() ? 0 : samples.get(samples.size() - 1).refused())
                .append(" refused by a server that was down or by a racing change to the same name)\n")
                .append(env.hasControlPlane() ? "- control plane: kube-controller-manager, kube-scheduler and kwok's nodes;"
                        + " a Deployment scaled to between 0 and " + 2 * PODS_AT_CHECK + " pods after every fault, to "
                        + PODS_AT_CHECK + " before each check (scales refused by a server that was down: "
                        + scalesRefused.get() + ")\n" : "")
                .append("- informers: ").append(informers.size()).append(" on two clients, subscribers: ")
                .append(targets.size() - informers.size()).append(" (COALESCE, UNBOUNDED, BOUNDED(4096), slow, throwing)\n")
                .append("- cycle: ").append(CYCLE.toSeconds()).append(" s of churn with a fault every 3 to 10 s, then the churn")
                .append(" pauses and every cache and view must equal a fresh LIST within ").append(DEADLINE.toSeconds())
                .append(" s, then a sample (heap after a full GC)\n\n")
                .append("| fault | injected |\n| --- | ---: |\n");
        faults.forEach((kind, n) -> b.append("| ").append(kind).append(" | ").append(n).append(" |\n"));
        b.append("| **total** | **").append(faults.values().stream().mapToInt(Integer::intValue).sum()).append("** |\n\n")
                .append("Relists: ").append(relists.get()).append("; list/watch restarts after an error: ").append(restarts.get())
                .append("; subscriptions that ended by design and were resubscribed: ")
                .append(recoveries.isEmpty() ? "none" : new TreeMap<>(recoveries).toString()).append(".\n\n")
                .append("| series (after a warm-up of ").append(SoakSample.WARM_UP.toMinutes())
                .append(" min) | first | last | mean | slope per hour | change over the run | flat |\n")
                .append("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
        boolean flat = true;
        for (SoakSample.Series series : SoakSample.SERIES) {
            SoakSample.Trend trend = SoakSample.trend(steady, series);
            flat &= trend.flat();
            b.append(trend.row()).append('\n');
        }
        boolean pass = failures.isEmpty() && dead.isEmpty() && flat && !samples.isEmpty();
        b.append("\n| result | value |\n| --- | ---: |\n")
                .append("| convergence checks passed (").append(targets.size()).append(" targets each) | ")
                .append(samples.size() - failures.size()).append(" of ").append(samples.size()).append(" |\n")
                .append("| worst check (all targets) | ").append(worstCheckMillis).append(" ms |\n")
                .append("| dead informers | ").append(dead.size()).append(" |\n\n");
        failures.forEach(f -> b.append("- failed: ").append(f).append('\n'));
        dead.forEach(d -> b.append("- dead: ").append(d).append('\n'));
        b.append(pass ? "**Verdict: pass**" : "**Verdict: FAIL**").append("\n\nSamples: `soak.csv`; chart: `soak.png`.\n");
        return b.toString();
    }
}
