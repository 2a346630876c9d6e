package io.reactiveinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.test.server.Fault;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.scheduler.Schedulers;

/**
 * The elections' tries against a real HTTP server, through the library's own client, on real threads. A
 * standby, while the holder's Lease (1 s) is valid and after it ran out, and a shard replica, with the server
 * stopped (connection refused within microseconds) or refusing their Lease writes, try about once per retry
 * period (200 ms, jittered up to 440 ms) over a 3 s window. Without a floor the standby made 76 to 212 tries
 * in that window (on a 2-core machine shared with other builds).
 */
@Timeout(30)
class ElectionRetryOverHttpTest {

    private static final String LEASE = "my-controller";
    private static final String GROUP = "reconcilers";
    private static final ElectionTimings FAST =
            new ElectionTimings(Duration.ofSeconds(1), Duration.ofMillis(500), Duration.ofMillis(200));
    private static final Duration WINDOW = Duration.ofSeconds(3);

    private final SimulatedApiServer server = SimulatedApiServer.start();
    private final KubernetesClient client = server.newClient();
    private final ResourceClient<V1Lease> leases = client.resource(V1Lease.class).inNamespace("default");

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    /** "gone" holds the Lease for 1 s and never renews. */
    private void holderStoppedRenewing() {
        leases.create(new V1Lease().metadata(new V1ObjectMeta().name(LEASE))
                .spec(new V1LeaseSpec().holderIdentity("gone").leaseDurationSeconds(1))).block(Duration.ofSeconds(5));
    }

    @Test
    void aStandbyWhoseApiServerStoppedTriesAboutOncePerRetryPeriod() throws Exception {
        holderStoppedRenewing();
        CountingLeases counted = counted();
        LeaderElector standby = LeaderElector.builder(counted, LEASE, "b").timings(FAST).build();
        CountDownLatch sawHolder = new CountDownLatch(1);

        var done = standby.run().take(WINDOW)
                .doOnNext(e -> {
                    if (e instanceof LeadershipEvent.NewLeader) {
                        sawHolder.countDown();
                    }
                })
                .then().toFuture();
        assertThat(sawHolder.await(5, TimeUnit.SECONDS)).as("read the holder before the server stopped").isTrue();
        stopServerAndWait(done);

        assertThat(counted.times("GET").size()).as("tries in %s", WINDOW)
                .isBetween(2, RetryBounds.atMost(WINDOW, FAST.retryPeriod()));
    }

    @Test
    void aShardReplicaWhoseApiServerStoppedTicksAboutOncePerRetryPeriod() throws Exception {
        CountingLeases counted = counted();
        ShardElector replica = ShardElector.builder(counted, GROUP, "b").shards(2).timings(FAST).build();
        CountDownLatch acquired = new CountDownLatch(1);

        var done = replica.run().take(WINDOW)
                .doOnNext(e -> acquired.countDown())
                .then().toFuture();
        assertThat(acquired.await(5, TimeUnit.SECONDS)).as("acquired a shard before the server stopped").isTrue();
        stopServerAndWait(done);

        assertThat(counted.times("LIST").size()).as("ticks in %s", WINDOW)
                .isBetween(2, RetryBounds.atMost(WINDOW, FAST.retryPeriod()));
    }

    /** The library's client on this test's server, counting the requests on the parallel scheduler's clock. */
    private CountingLeases counted() {
        return new CountingLeases(new ClientLeaseStore(leases), Schedulers.parallel(), 100_000);
    }

    private void stopServerAndWait(java.util.concurrent.Future<Void> campaignWindow) throws Exception {
        server.close(); // from now on its port refuses connections
        campaignWindow.get(10, TimeUnit.SECONDS);
    }

    static Stream<Arguments> refusals() {
        return Stream.of(Arguments.of("403", Fault.forbidden()), Arguments.of("500", Fault.internalError()),
                Arguments.of("429 with Retry-After 0", Fault.tooManyRequests(Duration.ZERO)));
    }

    @ParameterizedTest(name = "writes answered {0}")
    @MethodSource("refusals")
    void aStandbyWhoseLeaseWritesAreRefusedTriesAboutOncePerRetryPeriod(String name, Fault refusal) {
        holderStoppedRenewing();
        server.faults().always(RequestInfo.method("PUT").and(RequestInfo.pathContains("/leases/")), refusal);
        LeaderElector standby = LeaderElector.builder(leases, LEASE, "b").timings(FAST).build();

        standby.run().take(WINDOW).then().block(Duration.ofSeconds(10));

        long reads = server.requests().stream().filter(r -> r.method().equals("GET")).count();
        long writes = server.requests().stream().filter(r -> r.method().equals("PUT")).count();
        assertThat(reads).as("tries in %s", WINDOW).isBetween(2L, (long) RetryBounds.atMost(WINDOW, FAST.retryPeriod()));
        assertThat(writes).as("refused writes, from the holder's expiry (1 s) on").isBetween(1L, reads);
        assertThat(leases.get(LEASE).block(Duration.ofSeconds(5)).getSpec().getHolderIdentity()).isEqualTo("gone");
    }

    @ParameterizedTest(name = "shard Lease writes answered {0}")
    @MethodSource("refusals")
    void aShardReplicaWhoseLeaseWritesAreRefusedTicksAboutOncePerRetryPeriod(String name, Fault refusal) {
        server.faults().always(r -> r.path().contains("/leases") && !r.method().equals("GET"), refusal);
        ShardElector replica = ShardElector.builder(leases, GROUP, "b").shards(2).timings(FAST).build();

        replica.run().take(WINDOW).then().block(Duration.ofSeconds(10));

        long lists = server.requests().stream().filter(r -> r.method().equals("GET")).count();
        long writes = server.requests().stream().filter(r -> !r.method().equals("GET")).count();
        assertThat(lists).as("ticks in %s", WINDOW).isBetween(2L, (long) RetryBounds.atMost(WINDOW, FAST.retryPeriod()));
        assertThat(writes).as("refused writes: a few per tick").isBetween(lists - 1, 4 * lists);
    }
}
