package io.reactiveinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.TransportException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.Disposable;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The floor under the elections' retries, in virtual time (default timings: lease 15 s, retry 2 s). The holder
 * "gone" stopped renewing at 0 s, so its Lease runs out at 15 s by the candidate's clock; from then on every
 * try fails (its writes, or from 10 s every request), and each must wait at least a retry period (or the
 * server's Retry-After) after the one before: the wait derived from the holder's expiry alone is zero by
 * then, which made a standby spin (504 tries at 15 s in virtual time, where the store stopped answering).
 */
class ElectionRetryFloorTest {

    private static final String LEASE = "my-controller";
    private static final String GROUP = "reconcilers";
    private static final int SHARDS = 4;
    private static final long EXPIRY = 15_000;
    private static final long RETRY = 2_000;

    private final VirtualTimeScheduler clock = VirtualTimeScheduler.create();
    private final InMemoryLeases leases = new InMemoryLeases();
    /** Far more requests than a minute of one-per-retry-period tries; an unfloored loop reaches it at once. */
    private final CountingLeases store = new CountingLeases(leases.client(), clock, 1_000);
    private Disposable campaign;

    @AfterEach
    void stop() {
        if (campaign != null) {
            campaign.dispose();
        }
        clock.dispose();
    }

    static Stream<Arguments> failures() {
        Function<String, Throwable> forbidden = what -> KubernetesApiException.of(what, 403, null, null);
        Function<String, Throwable> internal = what -> KubernetesApiException.of(what, 500, null, null);
        Function<String, Throwable> throttled = what -> KubernetesApiException.of(what, 429, null, Duration.ZERO);
        Function<String, Throwable> refused = what -> new TransportException(what + ": connection refused",
                new ConnectException("Connection refused"));
        Function<String, Throwable> unavailable = what -> KubernetesApiException.of(what, 503, null, null);
        return Stream.of(
                Arguments.of("writes answered 403", false, forbidden),
                Arguments.of("writes answered 500", false, internal),
                Arguments.of("writes answered 429 with Retry-After 0", false, throttled),
                Arguments.of("every request refused from 10 s", true, refused),
                Arguments.of("every request answered 503 from 10 s", true, unavailable));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void afterTheHoldersExpiryEveryFailedTryWaitsAtLeastARetryPeriod(String name, boolean all,
                                                                      Function<String, Throwable> failure) {
        holderStoppedRenewing();
        runFailingForAMinute(all, failure, this::start);

        List<Long> tries = store.times("GET");
        if (!all) {
            assertThat(tries).as("one try right at the holder's expiry").contains(EXPIRY);
        }
        assertFlooredFrom(all ? 10_000 : EXPIRY, tries);
        assertThat(leases.holder(LEASE)).isEqualTo("gone");
    }

    @ParameterizedTest(name = "Retry-After {0} s")
    @MethodSource("retryAfters")
    void aRetryAfterLongerThanTheRetryPeriodIsHonouredUpToALeaseDuration(long retryAfterSeconds, long expectedGap) {
        holderStoppedRenewing();
        store.failWrites = what -> KubernetesApiException.of(what, 429, null, Duration.ofSeconds(retryAfterSeconds));
        start();
        clock.advanceTimeBy(Duration.ofSeconds(60));

        List<Long> tries = store.times("GET");
        assertThat(tries).contains(EXPIRY);
        assertGapsFrom(EXPIRY, tries, expectedGap);
        assertThat(tries.stream().filter(t -> t > EXPIRY)).as("still trying").isNotEmpty();
    }

    static Stream<Arguments> retryAfters() {
        return Stream.of(Arguments.of(5L, 5_000L), Arguments.of(3_600L, EXPIRY));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void aShardReplicasFailedTicksWaitAtLeastARetryPeriod(String name, boolean all, Function<String, Throwable> failure) {
        for (int i = 0; i < SHARDS; i++) {
            leases.put(new V1Lease().metadata(new V1ObjectMeta().name(GROUP + "-shard-" + i)
                            .labels(Map.of(ShardElector.GROUP_LABEL, GROUP)))
                    .spec(new V1LeaseSpec().holderIdentity("gone").leaseDurationSeconds(15)));
        }
        runFailingForAMinute(all, failure, () -> campaign =
                ShardElector.builder(store, GROUP, "b").shards(SHARDS).scheduler(clock).build().run().subscribe());

        assertFlooredFrom(all ? 10_000 : 0, store.times("LIST"));
        assertThat(leases.holder(GROUP + "-shard-0")).isEqualTo("gone");
    }

    /** "gone" holds the Lease (15 s) and never renews: by the candidate's clock it runs out at 15 s. */
    private void holderStoppedRenewing() {
        leases.put(new V1Lease().metadata(new V1ObjectMeta().name(LEASE))
                .spec(new V1LeaseSpec().holderIdentity("gone").leaseDurationSeconds(15)));
    }

    private void start() {
        campaign = LeaderElector.builder(store, LEASE, "b").scheduler(clock).build().run().subscribe();
    }

    /** Starts the campaign and runs a minute: writes fail from the start, or ({@code all}) everything from 10 s. */
    private void runFailingForAMinute(boolean all, Function<String, Throwable> failure, Runnable start) {
        if (!all) {
            store.failWrites = failure;
        }
        start.run();
        clock.advanceTimeBy(Duration.ofSeconds(10));
        if (all) {
            store.failAll = failure;
        }
        clock.advanceTimeBy(Duration.ofSeconds(50));
    }

    /**
     * The tries of a minute: at most one per retry period (plus one at an expiry); from {@code failingFrom} on,
     * each a retry period or more after the one before, and at most 2.2 retry periods (it keeps trying).
     */
    private static void assertFlooredFrom(long failingFrom, List<Long> tries) {
        assertThat(tries).as("tries in 60 s: at most one per retry period, plus the one at an expiry")
                .hasSizeLessThanOrEqualTo((int) (60_000 / RETRY) + 2);
        assertGapsFrom(failingFrom, tries, RETRY);
        assertThat(tries.stream().filter(t -> t > failingFrom).count())
                .as("it keeps trying: at most 2.2 retry periods apart")
                .isGreaterThanOrEqualTo((60_000 - failingFrom) / (RETRY * 22 / 10) - 1);
    }

    /** Each try made at or after {@code fromMillis} is followed by the next no sooner than {@code floor}. */
    private static void assertGapsFrom(long fromMillis, List<Long> tries, long floor) {
        for (int i = 1; i < tries.size(); i++) {
            if (tries.get(i - 1) >= fromMillis) {
                assertThat(tries.get(i) - tries.get(i - 1))
                        .as("gap after the try at %d ms (%d tries, the first: %s)", tries.get(i - 1), tries.size(),
                                tries.subList(0, Math.min(20, tries.size())))
                        .isGreaterThanOrEqualTo(floor);
            }
        }
    }
}
