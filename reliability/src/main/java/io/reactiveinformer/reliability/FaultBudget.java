package io.reactiveinformer.reliability;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Secret;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.test.Churn;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.Fault;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ReflectorOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The fault-budget run: informers of three kinds (ConfigMaps in every namespace, ConfigMaps of one
 * namespace by label selector, Secrets of another, and a metadata-only ConfigMap informer), with
 * COALESCE, UNBOUNDED and BOUNDED subscribers, one slow and one throwing, against the simulated API
 * server under churn. Each window injects faults of the kinds the server offers (429 with Retry-After,
 * 500, 403, 410 on a watch, a connection cut mid-object and mid-stream, garbage, an unknown event
 * type, an object without metadata, a silent watch, slow responses) plus server restarts and history
 * compaction, waits until every injected fault was served, then checks that every cache and every
 * subscriber's view equals the server's state within 30 s. Faults are counted when served, not when
 * scripted.
 *
 * <p>Then, with REAL windows, the faults only a real environment has ({@link RealEnvironmentFaults}: the
 * apiserver and etcd restarted and killed, compaction, RBAC revoked and granted) against the test
 * environment's kube-apiserver, which it attaches to ({@code REACTIVE_INFORMER_KUBECONFIG}) or starts.
 *
 * <p>Usage: {@code FaultBudget [FAULTS [SEED [REPORT [REAL]]]]}: at least FAULTS faults (default 200), seed 1,
 * REAL real-environment windows (default 0); the Markdown report is printed and, with REPORT, written there. Exit status 0 when every check passed,
 * no final state was lost and no informer died. Started by {@code reliability/run.sh}.
 *
 * <p>Blocks its main thread (it is a program, not library code): the informers run on Reactor's schedulers.
 */
public final class FaultBudget {

    private static final Duration CONVERGENCE_DEADLINE = Duration.ofSeconds(30);
    private static final Duration FIRE_DEADLINE = Duration.ofSeconds(20);
    private static final int FAULTS_PER_WINDOW = 6;
    private static final int CHANGES_PER_WINDOW = 30;
    private static final String NS_A = "a";
    private static final String NS_B = "b";

    private final SplittableRandom random;
    private final ClusterState state = ClusterState.create();
    private SimulatedApiServer server = SimulatedApiServer.start(state);
    private final Map<String, AtomicLong> injected = new TreeMap<>();
    /** Subscriptions that ended (a throwing handler, an overflowing BOUNDED buffer) and were resubscribed. */
    private final Map<String, AtomicLong> recoveries = new ConcurrentHashMap<>();
    private final List<Target<?>> targets = new ArrayList<>();
    private long checksPassed;
    private long checksFailed;
    private long lostFinalStates;
    private long worstConvergenceMillis;
    private final List<String> failures = new ArrayList<>();

    private FaultBudget(long seed) {
        this.random = new SplittableRandom(seed);
    }

    public static void main(String[] args) throws IOException {
        int faults = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
        int real = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        FaultBudget run = new FaultBudget(seed);
        String report = run.run(faults, seed, real);
        System.out.println(report);
        if (args.length > 2) {
            Files.writeString(Path.of(args[2]), report);
        }
        System.exit(run.ok() ? 0 : 1);
    }

    /** One informer, or one subscriber view: what it holds, and what the server holds for it. */
    private record Target<T extends KubernetesObject>(String name, SharedIndexInformer<?> informer,
                                                      Supplier<List<T>> holds, Supplier<List<? extends KubernetesObject>> truth) {
    }

    private String run(int faultBudget, long seed, int realWindows) {
        long started = System.nanoTime();
        ResourceType<V1ConfigMap> maps = ResourceType.of(V1ConfigMap.class);
        ResourceType<V1Secret> secrets = ResourceType.of(V1Secret.class);
        List<Churn> churns = List.of(new Churn(state, maps, NS_A, seed), new Churn(state, maps, NS_B, seed + 1),
                new Churn(state, secrets, NS_B, seed + 2));
        churns.forEach(c -> c.run(40));

        KubernetesClient client = server.newClient();
        ReflectorOptions options = ReflectorOptions.defaults()
                .withMinWatchTimeout(Duration.ofSeconds(1))   // watches rotate every 1-2 s: new requests for faults
                .withIdleTimeout(Duration.ofSeconds(3))       // a silent watch is given up after 3 s
                .withBackoff(new Backoff(Duration.ofMillis(50), 2.0, 1.0, Duration.ofSeconds(1), Duration.ofSeconds(30)));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(options).build();
        SharedIndexInformer<V1ConfigMap> allMaps = factory.informer(V1ConfigMap.class);
        SharedIndexInformer<V1ConfigMap> labelledA = factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(NS_A)
                .withLabelSelector("churn=true"));
        SharedIndexInformer<V1Secret> secretsB = factory.informer(InformerSpec.of(V1Secret.class).inNamespace(NS_B));
        SharedIndexInformer<?> metadata = factory.metadataInformer(V1ConfigMap.class);

        Supplier<List<? extends KubernetesObject>> allMapsTruth = () -> state.list(maps);
        Supplier<List<? extends KubernetesObject>> aTruth = () -> state.list(maps).stream()
                .filter(m -> NS_A.equals(m.getMetadata().getNamespace())).toList();
        Supplier<List<? extends KubernetesObject>> secretsTruth = () -> state.list(secrets).stream()
                .filter(s -> NS_B.equals(s.getMetadata().getNamespace())).toList();
        targets.add(new Target<>("informer ConfigMaps (all namespaces)", allMaps, allMaps.indexer()::list, allMapsTruth));
        targets.add(new Target<>("informer ConfigMaps a, churn=true", labelledA, labelledA.indexer()::list, aTruth));
        targets.add(new Target<>("informer Secrets b", secretsB, secretsB.indexer()::list, secretsTruth));
        targets.add(new Target<>("informer ConfigMaps metadata-only", metadata,
                () -> List.copyOf(metadata.indexer().list()), allMapsTruth));

        Disposable.Composite subscriptions = Disposables.composite();
        subscribe(subscriptions, allMaps, "COALESCE", SubscriberOptions.defaults(), allMapsTruth, false, false);
        subscribe(subscriptions, allMaps, "UNBOUNDED", SubscriberOptions.defaults().unbounded(), allMapsTruth, false, false);
        subscribe(subscriptions, allMaps, "BOUNDED(64), resubscribes after overflow", SubscriberOptions.defaults().bounded(64), allMapsTruth, false, false);
        subscribe(subscriptions, allMaps, "slow (2 ms per notification)", SubscriberOptions.defaults(), allMapsTruth, true, false);
        subscribe(subscriptions, allMaps, "throwing (one object in 7, resubscribes)", SubscriberOptions.defaults(), allMapsTruth,
                false, true);
        subscribe(subscriptions, labelledA, "UNBOUNDED", SubscriberOptions.defaults().unbounded(), aTruth, false, false);
        subscribe(subscriptions, secretsB, "COALESCE", SubscriberOptions.defaults(), secretsTruth, false, false);
        factory.start();
        factory.waitForCacheSync().block(CONVERGENCE_DEADLINE);

        int window = 0;
        while (total() < faultBudget) {
            window++;
            List<AtomicBoolean> fired = new ArrayList<>();
            for (int i = 0; i < FAULTS_PER_WINDOW; i++) {
                fired.add(inject(window, i));
            }
            for (int i = 0; i < CHANGES_PER_WINDOW; i++) {
                churns.get(random.nextInt(churns.size())).step();
            }
            if (window % 10 == 0) {
                restartServer();
            }
            if (window % 15 == 0) {
                state.compact();
                count("history compaction");
            }
            await("window " + window + ": the scripted faults served",
                    Convergence.until(() -> fired.stream().allMatch(AtomicBoolean::get), FIRE_DEADLINE, Schedulers.parallel())
                            .then(Mono.just(true)).onErrorReturn(false), FIRE_DEADLINE);
            server.faults().clear();
            check(window);
        }
        subscriptions.dispose();
        List<String> dead = new ArrayList<>();
        for (Target<?> target : targets) {
            if (target.informer().isStopped() || !target.informer().isStarted()) {
                dead.add(target.name());
            }
        }
        factory.shutdown().block(CONVERGENCE_DEADLINE);
        client.close();
        server.close();
        if (realWindows > 0) {
            try (KubeApiServer env = KubeApiServer.startOrAttach()) {
                realEnvironment = env.kubernetesVersion();
                dead.addAll(new RealEnvironmentFaults(env, this::count, (name, behind, millis) -> recordCheck(name, behind, millis))
                        .run(realWindows, seed));
            }
            window += realWindows;
        }
        deadInformers = dead.size();
        return report(faultBudget, seed, realWindows, window, Duration.ofNanos(System.nanoTime() - started), dead);
    }

    private long deadInformers;
    private final List<String> stalledWaits = new ArrayList<>();
    private String realEnvironment;

    private boolean ok() {
        return checksFailed == 0 && lostFinalStates == 0 && deadInformers == 0;
    }

    private long total() {
        return injected.values().stream().mapToLong(AtomicLong::get).sum();
    }

    private void count(String kind) {
        injected.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
    }

    /**
     * A subscriber and its view. A slow one takes 2 ms per notification without blocking a thread. A
     * throwing one fails on about one object in 7: by Reactive Streams rules that ends its subscription (the
     * informer and the other subscribers carry on), so it resubscribes, as an application would, starting
     * over from the informer's current state; so does a BOUNDED one its buffer overflowed.
     */
    private <T extends KubernetesObject> void subscribe(Disposable.Composite subscriptions, SharedIndexInformer<T> informer,
                                                       String name, SubscriberOptions options,
                                                       Supplier<List<? extends KubernetesObject>> truth,
                                                       boolean slow, boolean throwing) {
        SubscriberView<T> view = new SubscriberView<>(name);
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        // fails on about one object in 7, once per version (the resubscription's replay succeeds)
        subscriptions.add(view.follow(informer, options, slow, n -> throwing && Math.floorMod(n.key().hashCode(), 7) == 0
                && failedOnce.add(n.key() + "@" + version(n)), recoveries));
        targets.add(new Target<>("subscriber " + name + " of " + informer, informer, view::objects, truth));
    }

    private static String version(Notification<?> n) {
        KubernetesObject object = n instanceof Notification.Added<?> a ? a.object()
                : n instanceof Notification.Updated<?> u ? u.newObject()
                : n instanceof Notification.Deleted<?> d ? d.lastState() : null;
        return object == null || object.getMetadata() == null ? "" : object.getMetadata().getResourceVersion();
    }

    /** Scripts one fault for the next matching request; the flag turns true when the server serves it. */
    private AtomicBoolean inject(int window, int slot) {
        AtomicBoolean fired = new AtomicBoolean();
        String[] paths = {"/api/v1/configmaps", "/api/v1/namespaces/a/configmaps", "/api/v1/namespaces/b/secrets"};
        String path = paths[random.nextInt(paths.length)];
        int pick = random.nextInt(12);
        String kind;
        Fault fault;
        boolean watch = true;
        switch (pick) {
            case 0 -> { kind = "429 with Retry-After"; fault = Fault.tooManyRequests(Duration.ofSeconds(1)); }
            case 1 -> { kind = "500"; fault = Fault.internalError(); watch = random.nextBoolean(); }
            case 2 -> { kind = "403"; fault = Fault.forbidden(); }
            case 3 -> { kind = "410 on a watch"; fault = Fault.expiredWatch(); }
            case 4 -> { kind = "connection cut mid-object"; fault = Fault.closeAfterBytes(1 + random.nextInt(400)); }
            case 5 -> { kind = "connection cut mid-stream"; fault = Fault.closeAfterEvents(random.nextInt(3)); }
            case 6 -> { kind = "garbage bytes"; fault = Fault.garbage(random.nextInt(3), 40, random.nextLong()); }
            case 7 -> { kind = "unknown event type"; fault = Fault.unknownEventType(random.nextInt(2)); }
            case 8 -> { kind = "object without metadata"; fault = Fault.objectWithoutMetadata(random.nextInt(2)); }
            case 9 -> { kind = "silent watch"; fault = Fault.silentWatch(); }
            case 10 -> { kind = "slow response (0.5-1.5 s)"; fault = Fault.delay(Duration.ofMillis(500 + random.nextInt(1000)));
                watch = random.nextBoolean(); }
            default -> { kind = "429 storm (3 in a row)"; fault = Fault.tooManyRequests(Duration.ofSeconds(1)); }
        }
        boolean onWatch = watch;
        // A list is a LIST or a streaming list (a watch with sendInitialEvents, the default): a list fault hits either.
        Predicate<RequestInfo> matches = r -> r.path().equals(path)
                && (r.isWatch() && !"true".equals(r.query().get("sendInitialEvents"))) == onWatch;
        int times = pick == 11 ? 3 : 1;
        AtomicLong left = new AtomicLong(times);
        server.faults().times(times, r -> {
            if (!matches.test(r)) {
                return false;
            }
            count(kind);
            if (left.decrementAndGet() == 0) {
                fired.set(true);
            }
            return true;
        }, fault);
        return fired;
    }

    private void restartServer() {
        int port = server.port();
        server.close();
        server = SimulatedApiServer.start(state, port);
        count("server restart");
    }

    private void check(int window) {
        long start = System.nanoTime();
        List<String> behind = new ArrayList<>();
        for (Target<?> target : targets) {
            boolean converged = await("window " + window + ": " + target.name(), Convergence.until(
                            () -> Convergence.versions(target.holds().get()).equals(Convergence.versions(target.truth().get())),
                            CONVERGENCE_DEADLINE, Schedulers.parallel())
                    .then(Mono.just(true)).onErrorReturn(false), CONVERGENCE_DEADLINE);
            if (!converged) {
                behind.add(target.name());
                Map<String, String> holds = Convergence.versions(target.holds().get());
                Map<String, String> truth = Convergence.versions(target.truth().get());
                long lost = truth.entrySet().stream().filter(e -> !Objects.equals(holds.get(e.getKey()), e.getValue())).count()
                        + holds.keySet().stream().filter(k -> !truth.containsKey(k)).count();
                lostFinalStates += lost;
            }
        }
        recordCheck("window " + window, behind, (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * Blocks for {@code wait}, whose own deadline is {@code deadline} on a scheduler; false if it ends false,
     * or if it has not ended well after that deadline. The latter has happened (its timer never fired; cause
     * not found yet): it is counted, with a thread dump on stderr, instead of hanging the run.
     */
    private boolean await(String what, Mono<Boolean> wait, Duration deadline) {
        try {
            return Boolean.TRUE.equals(wait.block(deadline.plusSeconds(30)));
        } catch (IllegalStateException stalled) {
            stalledWaits.add(what);
            System.err.println("stalled: " + what + "; threads:");
            Thread.getAllStackTraces().forEach((thread, stack) -> {
                System.err.println("\"" + thread.getName() + "\" " + thread.getState());
                for (StackTraceElement frame : stack) {
                    System.err.println("    at " + frame);
                }
            });
            return false;
        }
    }

    private void recordCheck(String window, List<String> behind, long millis) {
        worstConvergenceMillis = Math.max(worstConvergenceMillis, millis);
        if (behind.isEmpty()) {
            checksPassed++;
        } else {
            checksFailed++;
            failures.add(window + ": " + String.join(", ", behind));
        }
    }

    private String report(int budget, long seed, int realWindows, int windows, Duration took, List<String> dead) {
        StringBuilder b = new StringBuilder();
        b.append("# Fault-budget run\n\n")
                .append("- finished: ").append(Instant.now()).append('\n')
                .append("- configuration: at least ").append(budget).append(" faults, seed ").append(seed)
                .append(", ").append(FAULTS_PER_WINDOW).append(" scripted faults and ").append(CHANGES_PER_WINDOW)
                .append(" changes per window, a server restart every 10th window, a history compaction every 15th\n")
                .append("- against: the simulated API server (real HTTP on 127.0.0.1)")
                .append(realWindows == 0 ? "" : ", then " + realWindows + " windows of real-environment faults against"
                        + " kube-apiserver " + realEnvironment + " and etcd, with 2 informers and 3 subscriber views of their"
                        + " own (checks within 60 s there)")
                .append('\n')
                .append("- informers: ").append(4).append(", subscriber views: ").append(targets.size() - 4).append('\n')
                .append("- duration: ").append(took.toSeconds()).append(" s, ").append(windows).append(" windows\n\n")
                .append("| fault kind | injected (served) |\n| --- | ---: |\n");
        injected.forEach((kind, n) -> b.append("| ").append(kind).append(" | ").append(n.get()).append(" |\n"));
        b.append("| **total** | **").append(total()).append("** |\n\n");
        b.append("Subscriptions that ended by design and were resubscribed: ").append(recoveries.isEmpty() ? "none"
                : new TreeMap<>(recoveries).toString()).append(".\n\n");
        b
                .append("| result | value |\n| --- | ---: |\n")
                .append("| convergence checks passed (every cache and view == LIST within 30 s) | ").append(checksPassed)
                .append(" of ").append(checksPassed + checksFailed).append(" |\n")
                .append("| worst convergence time | ").append(worstConvergenceMillis).append(" ms |\n")
                .append("| lost final states | ").append(lostFinalStates).append(" |\n")
                .append("| dead informers | ").append(dead.size()).append(" |\n");
        if (!failures.isEmpty()) {
            b.append("\nFailed checks:\n\n");
            failures.forEach(f -> b.append("- ").append(f).append('\n'));
        }
        if (!dead.isEmpty()) {
            b.append("\nDead informers: ").append(String.join(", ", dead)).append('\n');
        }
        if (!stalledWaits.isEmpty()) {
            b.append("\nWaits of this runner whose own deadline never fired (given up 30 s after it; thread dumps"
                    + " on stderr): ").append(String.join("; ", stalledWaits)).append('\n');
        }
        return b.toString();
    }
}
