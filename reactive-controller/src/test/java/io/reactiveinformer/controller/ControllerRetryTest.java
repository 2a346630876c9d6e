package io.reactiveinformer.controller;

import static io.reactiveinformer.controller.TestObjects.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.server.Fault;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A request whose reconcile fails at once, or asks to be requeued after no delay, goes back through the rate
 * limiter (client-go's default: 5 ms doubling per request, under a 10/s bucket): its reconciles thin out
 * exponentially instead of looping as fast as they fail.
 */
@Timeout(30)
class ControllerRetryTest {

    /** More reconciles than a rate-limited minute allows; an unlimited loop reaches it at once. */
    private static final int CAP = 1_000;

    private final FakeApiServer<V1ReplicaSet> replicaSets = new FakeApiServer<>(m -> new V1ReplicaSet().metadata(m));
    private final List<Disposable> toStop = new ArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        toStop.forEach(Disposable::dispose);
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
    }

    private Reconciles startController(Scheduler scheduler, Function<Request, Mono<Result>> behaviour) {
        SharedIndexInformer<V1ReplicaSet> informer =
                SharedIndexInformer.builder(V1ReplicaSet.class, replicaSets).name("replicasets").scheduler(scheduler)
                        .build();
        Reconciles reconciles = new Reconciles(scheduler);
        reconciles.behaviour = behaviour;
        replicaSets.put(replicaSet("a", "r1", 1));
        toStop.add(Controller.builder(informer).name("rs").scheduler(scheduler).reconciler(reconciles).build().start());
        toStop.add(() -> {
            if (informer.isStarted()) {
                informer.start().dispose();
            }
        });
        return reconciles;
    }

    /**
     * The most reconciles of one request in {@code window} under the default limiter: the first, then one
     * after 5 ms, 10 ms, 20 ms, ... (the n-th retry comes 5 ms x (2^n - 1) after the first); plus two.
     */
    private static int atMostRateLimited(Duration window) {
        int retries = 0;
        while (5L * ((1L << (retries + 1)) - 1) <= window.toMillis()) {
            retries++;
        }
        return 1 + retries + 2;
    }

    static Stream<Arguments> fastAnswers() {
        return Stream.of(
                Arguments.of("fails at once", (Supplier<Mono<Result>>) () -> Mono.error(new IllegalStateException("no"))),
                Arguments.of("asks to requeue after 0", (Supplier<Mono<Result>>) () -> Mono.just(
                        Result.requeueAfter(Duration.ZERO))),
                Arguments.of("asks to requeue after -1 s", (Supplier<Mono<Result>>) () -> Mono.just(
                        Result.requeueAfter(Duration.ofSeconds(-1)))));
    }

    @ParameterizedTest(name = "a reconciler that {0}")
    @MethodSource("fastAnswers")
    void aRequestAnsweredAtOnceIsRetriedThroughTheRateLimiterInVirtualTime(String name, Supplier<Mono<Result>> answer) {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        toStop.add(time);
        AtomicInteger calls = new AtomicInteger();
        Reconciles reconciles = startController(time,
                r -> calls.incrementAndGet() > CAP ? Mono.just(Result.done()) : answer.get());

        time.advanceTimeBy(Duration.ofSeconds(60));

        List<Long> times = reconciles.times();
        assertThat(times).as("reconciles in 60 s (the first 20: %s)", times.subList(0, Math.min(20, times.size())))
                .hasSizeBetween(10, atMostRateLimited(Duration.ofSeconds(60)));
        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i) - times.get(i - 1)).as("wait before retry %d: 5 ms x 2^%d", i, i - 1)
                    .isEqualTo(5L << (i - 1));
        }
    }

    static Stream<Arguments> unreachableServers() {
        return Stream.of(
                Arguments.of("a closed port", (ServerSetup) ControllerRetryTest::closedPort),
                Arguments.of("a server answering 403", (ServerSetup) tests -> refusing(tests, Fault.forbidden())),
                Arguments.of("a server answering 500", (ServerSetup) tests -> refusing(tests, Fault.internalError())));
    }

    /** Where the reconciler's client connects; what to close afterwards goes into {@code toClose}. */
    interface ServerSetup {
        URI start(List<AutoCloseable> toClose) throws IOException;
    }

    private static URI closedPort(List<AutoCloseable> toClose) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        return URI.create("http://127.0.0.1:" + port);
    }

    private static URI refusing(List<AutoCloseable> toClose, Fault refusal) {
        SimulatedApiServer server = SimulatedApiServer.start();
        server.faults().always(RequestInfo.any(), refusal);
        toClose.add(server);
        return server.url();
    }

    @ParameterizedTest(name = "against {0}")
    @MethodSource("unreachableServers")
    void aReconcilerWhoseRequestsFailAtOnceIsRateLimitedOnRealThreads(String name, ServerSetup setup) throws Exception {
        KubernetesClient client = KubernetesClient.create(ClientConfig.forServer(setup.start(toClose)));
        toClose.add(client);
        Scheduler scheduler = Schedulers.parallel();
        Duration window = Duration.ofSeconds(2);
        // made here: the first use of the client's resource types reads them from the class path
        ResourceClient<V1ConfigMap> configMaps = client.resource(V1ConfigMap.class).inNamespace("default");
        // and one request before the controller: a cold client's first request loads and starts its HTTP stack,
        // seconds on a loaded machine, which would fall inside the window that the first reconcile opens
        configMaps.get("settings").onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(20));
        CountDownLatch first = new CountDownLatch(1);
        Reconciles reconciles = startController(scheduler, r -> {
            first.countDown();
            return configMaps.get("settings").thenReturn(Result.done());
        });

        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
        Mono.delay(window, scheduler).block(Duration.ofSeconds(10));
        toStop.forEach(Disposable::dispose);

        List<Long> times = reconciles.times();
        long inWindow = times.stream().filter(t -> t <= times.get(0) + window.toMillis()).count();
        assertThat(inWindow).as("reconciles in %s", window).isBetween(2L, (long) atMostRateLimited(window));
    }
}
