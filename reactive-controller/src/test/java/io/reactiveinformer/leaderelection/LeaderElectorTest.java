package io.reactiveinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The elector in virtual time on in-memory Leases (default timings: lease 15 s, renew deadline 10 s, retry 2 s). */
class LeaderElectorTest {

    private static final String LEASE = "my-controller";

    private final VirtualTimeScheduler clock = VirtualTimeScheduler.create();
    private final InMemoryLeases leases = new InMemoryLeases();
    private final Disposable.Composite running = Disposables.composite();

    @AfterEach
    void stop() {
        running.dispose();
        clock.dispose();
    }

    /** A candidate with its own connection, recording its events with their virtual time. */
    private final class Candidate {
        final String identity;
        final InMemoryLeases.Client connection = leases.client();
        final LeaderElector elector;
        final List<String> events = new CopyOnWriteArrayList<>();
        volatile LeaseTerm term;
        volatile long acquiredAt = -1;
        volatile long lostAt = -1;
        Disposable campaign;

        Candidate(String identity, boolean releaseOnCancel) {
            this(identity, releaseOnCancel, clock);
        }

        Candidate(String identity, boolean releaseOnCancel, Scheduler scheduler) {
            this.identity = identity;
            this.elector = LeaderElector.builder(connection, LEASE, identity).scheduler(scheduler)
                    .releaseOnCancel(releaseOnCancel).build();
        }

        Candidate start() {
            campaign = elector.run().subscribe(e -> {
                long now = clock.now(TimeUnit.MILLISECONDS);
                if (e instanceof LeadershipEvent.Acquired a) {
                    term = a.term();
                    acquiredAt = now;
                    events.add("acquired@" + now);
                } else if (e instanceof LeadershipEvent.Lost) {
                    lostAt = now;
                    events.add("lost@" + now);
                } else if (e instanceof LeadershipEvent.NewLeader n) {
                    events.add("leader " + n.holder());
                }
            });
            running.add(campaign);
            return this;
        }
    }

    private void advance(Duration by) {
        clock.advanceTimeBy(by);
    }

    private long now() {
        return clock.now(TimeUnit.MILLISECONDS);
    }

    @Test
    void acquiresAFreeLeaseAtOnceAndRenewsItEveryRetryPeriod() {
        Candidate a = new Candidate("a", true).start();

        assertThat(a.events).containsExactly("leader a", "acquired@0");
        V1Lease lease = leases.get(LEASE);
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("a");
        assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
        assertThat(lease.getSpec().getLeaseTransitions()).isZero();

        advance(Duration.ofSeconds(60));
        V1Lease renewed = leases.get(LEASE);
        assertThat(renewed.getSpec().getRenewTime()).isEqualTo(OffsetDateTime.ofInstant(
                java.time.Instant.ofEpochSecond(60), ZoneOffset.UTC));
        assertThat(renewed.getSpec().getAcquireTime()).isEqualTo(lease.getSpec().getAcquireTime());
        assertThat(leases.writes()).isEqualTo(31); // the create, then one renewal every 2 s
        assertThat(a.term.isHeld()).isTrue();
        assertThat(a.events).containsExactly("leader a", "acquired@0");
    }

    @Test
    void aFollowerTakesOverOnlyALeaseDurationAfterItLastSawTheLeaseChange() {
        Candidate a = new Candidate("a", false).start();
        Candidate b = new Candidate("b", false).start();
        advance(Duration.ofSeconds(30));
        assertThat(b.events).containsExactly("leader a");

        long lastRenewal = now(); // a renews at every even second; cut it off without releasing
        a.campaign.dispose();
        assertThat(a.term.isHeld()).isFalse();

        advance(Duration.ofSeconds(30));
        assertThat(b.events).containsExactly("leader a", "leader b", "acquired@" + b.acquiredAt);
        // b saw a's last renewal at most one jittered retry period (4.4 s) after it happened
        assertThat(b.acquiredAt).isBetween(lastRenewal + 15_000, lastRenewal + 15_000 + 4_400);
        assertThat(leases.get(LEASE).getSpec().getLeaseTransitions()).isEqualTo(1);
    }

    @Test
    void aLeaderWhoseRenewalsFailStopsAtTheRenewDeadlineBeforeAnyoneElseMayLead() {
        Candidate a = new Candidate("a", true).start();
        Candidate b = new Candidate("b", true).start();
        advance(Duration.ofSeconds(10));
        long lastRenewal = now();

        a.connection.down = true;
        advance(Duration.ofSeconds(9, 999_000_000));
        assertThat(a.term.isHeld()).isTrue();
        assertThat(a.lostAt).isEqualTo(-1);
        advance(Duration.ofMillis(1));
        assertThat(a.term.isHeld()).isFalse();
        assertThat(a.lostAt).isEqualTo(lastRenewal + 10_000);

        advance(Duration.ofSeconds(30));
        assertThat(b.acquiredAt).isGreaterThanOrEqualTo(lastRenewal + 15_000).isGreaterThan(a.lostAt)
                .isLessThanOrEqualTo(lastRenewal + 15_000 + 4_400);

        // back online, a finds b leading and follows
        a.connection.down = false;
        advance(Duration.ofSeconds(30));
        assertThat(a.events).containsExactly("leader a", "acquired@0", "lost@" + a.lostAt, "leader b");
        assertThat(leases.holder(LEASE)).isEqualTo("b");
    }

    @Test
    void aRenewalHandledAfterTheDeadlineEndsTheTermAndBeginsANewOneEvenWhenTheDeadlineTaskIsLate() {
        // renewals every 2 s + 1.5 s: at 0, 3.5, 7 and 10.5 s; the deadline task runs 1.5 s late
        Candidate a = new Candidate("a", true, LateTimers.of(clock, Duration.ofMillis(1500))).start();
        advance(Duration.ofMillis(10_600));
        LeaseTerm first = a.term;

        a.connection.down = true; // the renewals at 14 and 17.5 s fail
        advance(Duration.ofMillis(10_000));
        assertThat(first.isHeld()).as("20.6 s: past the deadline (20.5 s), its task (22 s) not run yet").isFalse();
        assertThat(a.lostAt).isEqualTo(-1);

        a.connection.down = false; // the renewal at 21 s succeeds
        advance(Duration.ofMillis(1_000));
        assertThat(first.isHeld()).as("a term no longer held never is again").isFalse();
        assertThat(a.events).containsExactly("leader a", "acquired@0", "lost@21000", "acquired@21000");
        assertThat(a.term).isNotSameAs(first);
        assertThat(a.term.isHeld()).isTrue();
    }

    @Test
    void ofTwoCandidatesThatBothSawAFreeLeaseOnlyTheFirstWriteWinsTheOtherGetsAConflict() {
        ElectionTimings timings = ElectionTimings.defaults();
        LeaseLock a = new LeaseLock(leases.client(), LEASE, "a", timings, java.util.Map.of(), clock);
        LeaseLock b = new LeaseLock(leases.client(), LEASE, "b", timings, java.util.Map.of(), clock);
        a.fetch().block();
        b.fetch().block();
        assertThat(a.acquirable()).isTrue();
        assertThat(b.acquirable()).isTrue();

        assertThat(a.acquireOrRenew(now()).block()).isTrue();
        assertThat(b.acquireOrRenew(now()).block()).isFalse(); // its create conflicts
        b.fetch().block();
        assertThat(b.holder()).isEqualTo("a");
        assertThat(b.acquirable()).isFalse();

        // and a free (released) Lease both read: the second update carries a stale resourceVersion
        a.release().block();
        a.fetch().block();
        b.fetch().block();
        assertThat(b.acquireOrRenew(now()).block()).isTrue();
        assertThat(a.acquireOrRenew(now()).block()).isFalse();
        assertThat(leases.holder(LEASE)).isEqualTo("b");
    }

    @Test
    void aLeaderLosesAtOnceWhenItsRenewalConflictsWithAnotherHoldersWrite() {
        Candidate a = new Candidate("a", true).start();
        advance(Duration.ofSeconds(3));
        V1Lease stolen = leases.get(LEASE);
        stolen.getSpec().holderIdentity("intruder");
        leases.put(stolen);

        advance(Duration.ofSeconds(1)); // a's renewal at 4 s conflicts
        assertThat(a.term.isHeld()).isTrue(); // a conflict alone proves nothing: a rereads first
        advance(Duration.ofSeconds(2));
        assertThat(a.lostAt).isEqualTo(6_000);
        assertThat(a.events).containsExactly("leader a", "acquired@0", "leader intruder", "lost@6000");
    }

    @Test
    void aReleaseThatConflictsWithItsOwnUnreadRenewalReadsTheLeaseAgainAndStillFreesIt() {
        LeaseLock a = new LeaseLock(leases.client(), LEASE, "a", ElectionTimings.defaults(), java.util.Map.of(), clock);
        a.fetch().block();
        assertThat(a.acquireOrRenew(now()).block()).isTrue();
        // a renewal the server applied but whose answer a stopping candidate never read: a newer version, still a's
        V1Lease renewed = leases.get(LEASE);
        renewed.getSpec().renewTime(OffsetDateTime.now(ZoneOffset.UTC));
        leases.put(renewed);

        a.release().block();

        V1Lease released = leases.get(LEASE);
        assertThat(released.getSpec().getHolderIdentity()).as("released, not left to expire").isNull();
        assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
    }

    @Test
    void aReleaseLeavesALeaseSomeoneElseTookMeanwhile() {
        LeaseLock a = new LeaseLock(leases.client(), LEASE, "a", ElectionTimings.defaults(), java.util.Map.of(), clock);
        a.fetch().block();
        assertThat(a.acquireOrRenew(now()).block()).isTrue();
        V1Lease taken = leases.get(LEASE);
        taken.getSpec().holderIdentity("b");
        leases.put(taken);

        a.release().block();

        assertThat(leases.holder(LEASE)).isEqualTo("b");
    }

    @Test
    void releaseOnCancelLetsTheNextCandidateLeadWithinAboutOneRetryPeriod() {
        Candidate a = new Candidate("a", true).start();
        Candidate b = new Candidate("b", true).start();
        advance(Duration.ofSeconds(21));

        long cancelled = now();
        a.campaign.dispose();
        V1Lease released = leases.get(LEASE);
        assertThat(released.getSpec().getHolderIdentity()).isNull();
        assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);

        advance(Duration.ofSeconds(10));
        assertThat(b.acquiredAt).isBetween(cancelled, cancelled + 4_400);
        assertThat(leases.holder(LEASE)).isEqualTo("b");
    }

    /** The holder's timestamps, however far from the observer's clock, never decide expiry. */
    @ParameterizedTest
    @ValueSource(longs = {-86_400, 86_400})
    void clockSkewBetweenHoldersIsIrrelevant(long skewSeconds) {
        // a holder whose clock is a day off, renewing every 2 s as long as the test says
        OffsetDateTime skewed = OffsetDateTime.now(ZoneOffset.UTC).plusSeconds(skewSeconds);
        AtomicInteger renewals = new AtomicInteger();
        leases.put(new V1Lease().metadata(new V1ObjectMeta().name(LEASE)).spec(new V1LeaseSpec()
                .holderIdentity("skewed").leaseDurationSeconds(15).acquireTime(skewed).renewTime(skewed)));
        Disposable holder = Flux.interval(Duration.ofSeconds(2), clock).take(10).subscribe(i -> {
            V1Lease renewal = leases.get(LEASE);
            renewal.getSpec().renewTime(skewed.plusSeconds(2 * (i + 1)));
            leases.put(renewal);
            renewals.incrementAndGet();
        });
        running.add(holder);
        Candidate b = new Candidate("b", true).start();

        advance(Duration.ofSeconds(20)); // renewed 10 times
        assertThat(renewals).hasValue(10);
        assertThat(b.acquiredAt).isEqualTo(-1);
        long lastRenewal = now();
        advance(Duration.ofSeconds(30));
        assertThat(b.acquiredAt).isBetween(lastRenewal + 15_000, lastRenewal + 15_000 + 4_400);
        assertThat(leases.get(LEASE).getSpec().getLeaseTransitions()).isEqualTo(1);
    }

    @Test
    void whileLeadingRunsWorkOnlyDuringATermAndCancelsItWhenTheTermEnds() {
        InMemoryLeases.Client connection = leases.client();
        LeaderElector elector = LeaderElector.builder(connection, LEASE, "a").scheduler(clock).build();
        List<String> log = new CopyOnWriteArrayList<>();
        running.add(elector.whileLeading(() -> Flux.interval(Duration.ofSeconds(1), clock)
                        .doOnSubscribe(s -> log.add("start@" + now()))
                        .doOnCancel(() -> log.add("cancel@" + now())))
                .subscribe());
        advance(Duration.ofSeconds(5));
        connection.down = true; // last renewal started at 4 s
        advance(Duration.ofSeconds(20));
        connection.down = false; // no one else: a leads again at its next try
        advance(Duration.ofSeconds(10));

        assertThat(log).hasSize(3);
        assertThat(log.subList(0, 2)).containsExactly("start@0", "cancel@14000");
        assertThat(log.get(2)).startsWith("start@");
    }

    @Test
    void aSecondConcurrentRunOfOneElectorFails() {
        LeaderElector elector = LeaderElector.builder(leases.client(), LEASE, "a").scheduler(clock).build();
        running.add(elector.run().subscribe());
        assertThatThrownBy(() -> elector.run().blockFirst(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already campaigning");
    }

    @Test
    void publishesIsLeaderAndTransitions() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        InMemoryLeases.Client connection = leases.client();
        LeaderElector elector = LeaderElector.builder(connection, LEASE, "a").scheduler(clock).meterRegistry(registry)
                .build();
        running.add(elector.run().subscribe());
        assertThat(registry.get("leader_election_is_leader").tag("name", LEASE).gauge().value()).isEqualTo(1.0);
        connection.down = true;
        advance(Duration.ofSeconds(11));
        assertThat(registry.get("leader_election_is_leader").gauge().value()).isZero();
        assertThat(registry.get("leader_election_transitions_total").tag("event", "acquired").functionCounter().count())
                .isEqualTo(1.0);
        assertThat(registry.get("leader_election_transitions_total").tag("event", "lost").functionCounter().count())
                .isEqualTo(1.0);
    }

    @Test
    void timingsAreValidatedAsClientGoDoes() {
        assertThat(ElectionTimings.defaults()).isEqualTo(new ElectionTimings(Duration.ofSeconds(15),
                Duration.ofSeconds(10), Duration.ofSeconds(2)));
        assertThatThrownBy(() -> new ElectionTimings(Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(2)))
                .hasMessageContaining("greater than renewDeadline");
        assertThatThrownBy(() -> new ElectionTimings(Duration.ofSeconds(15), Duration.ofMillis(2400), Duration.ofSeconds(2)))
                .hasMessageContaining("1.2 x retryPeriod");
        assertThat(new ElectionTimings(Duration.ofMillis(2500), Duration.ofMillis(2401), Duration.ofSeconds(2))
                .leaseSeconds()).isEqualTo(3);
    }

    /** With no registry given, the election's meters go to Micrometer's global one (Spring Boot fills it). */
    @Test
    void withoutARegistryTheMetersGoToTheGlobalOne() {
        SimpleMeterRegistry boot = new SimpleMeterRegistry();
        io.micrometer.core.instrument.Metrics.addRegistry(boot);
        try {
            LeaderElector elector = LeaderElector.builder(leases.client(), "global-meters", "a").scheduler(clock).build();
            running.add(elector.run().subscribe());
            advance(Duration.ofSeconds(1));

            assertThat(boot.get("leader_election_is_leader").tag("name", "global-meters").gauge().value()).isEqualTo(1.0);
        } finally {
            io.micrometer.core.instrument.Metrics.removeRegistry(boot);
        }
    }
}
