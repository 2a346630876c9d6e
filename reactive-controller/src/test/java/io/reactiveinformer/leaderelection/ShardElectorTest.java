package io.reactiveinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.scheduler.Scheduler;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The shard balancer in virtual time on in-memory Leases (16 shards, lease 15 s, renew deadline 10 s, retry
 * 2 s). Time advances in 100 ms steps, and after every step no shard may be held by two replicas.
 */
class ShardElectorTest {

    private static final String GROUP = "reconcilers";
    private static final int SHARDS = 16;

    private final VirtualTimeScheduler clock = VirtualTimeScheduler.create();
    private final InMemoryLeases leases = new InMemoryLeases();
    private final List<Replica> replicas = new ArrayList<>();
    private final Disposable.Composite running = Disposables.composite();

    @AfterEach
    void stop() {
        running.dispose();
        clock.dispose();
    }

    private final class Replica {
        final String identity;
        final InMemoryLeases.Client connection = leases.client();
        final ShardElector elector;
        final Map<Integer, LeaseTerm> terms = new ConcurrentHashMap<>();
        Disposable campaign;

        Replica(String identity, SimpleMeterRegistry registry) {
            this(identity, registry, clock);
        }

        Replica(String identity, SimpleMeterRegistry registry, Scheduler scheduler) {
            this.identity = identity;
            ShardElector.Builder builder = ShardElector.builder(connection, GROUP, identity).shards(SHARDS)
                    .scheduler(scheduler);
            this.elector = (registry == null ? builder : builder.meterRegistry(registry)).build();
        }

        Replica start() {
            campaign = elector.run().subscribe(e -> {
                if (e instanceof LeadershipEvent.Acquired a) {
                    assertThat(a.term().isHeld()).isTrue();
                    terms.put(a.term().shard(), a.term());
                } else if (e instanceof LeadershipEvent.Lost l) {
                    assertThat(l.term().isHeld()).isFalse();
                    terms.remove(l.term().shard(), l.term());
                }
            });
            running.add(campaign);
            replicas.add(this);
            return this;
        }

        int held() {
            return (int) terms.values().stream().filter(LeaseTerm::isHeld).count();
        }
    }

    private Replica replica(String identity) {
        return new Replica(identity, null).start();
    }

    @Test
    void aShardRenewedAfterItsDeadlineWhileTheDeadlineTaskIsLateBeginsANewTerm() {
        // ticks every 2 s + 1.5 s: at 0, 3.5, 7 and 10.5 s; the deadline tasks run 1.5 s late
        Replica a = new Replica("a", null, LateTimers.of(clock, Duration.ofMillis(1500))).start();
        advance(Duration.ofMillis(10_600));
        Map<Integer, LeaseTerm> first = Map.copyOf(a.terms);
        assertThat(first).isNotEmpty();

        a.connection.down = true; // the ticks at 14 and 17.5 s fail
        advance(Duration.ofMillis(10_000));
        assertThat(first.values()).as("past the deadlines (20.5 s), their tasks (22 s) not run yet")
                .noneMatch(LeaseTerm::isHeld);

        a.connection.down = false; // the tick at 21 s renews
        advance(Duration.ofMillis(1_000));
        assertThat(first.values()).as("a term no longer held never is again").noneMatch(LeaseTerm::isHeld);
        assertThat(a.terms.keySet()).containsAll(first.keySet());
        first.forEach((shard, term) -> assertThat(a.terms.get(shard)).isNotSameAs(term).matches(LeaseTerm::isHeld));
    }

    /** Advances in 100 ms steps, checking after each that no shard is held twice. */
    private void advance(Duration by) {
        for (long step = 0; step < by.toMillis(); step += 100) {
            clock.advanceTimeBy(Duration.ofMillis(100));
            Map<Integer, String> holders = new TreeMap<>();
            for (Replica replica : replicas) {
                replica.terms.forEach((shard, term) -> {
                    if (term.isHeld()) {
                        String other = holders.put(shard, replica.identity);
                        assertThat(other).as("shard %d held by %s and %s at %d ms", shard, other, replica.identity,
                                now()).isNull();
                    }
                });
            }
        }
    }

    /** Advances until every shard is held, at most {@code bound}; returns how long that took (ms). */
    private long untilAllHeld(Duration bound) {
        long start = now();
        while (replicas.stream().mapToInt(Replica::held).sum() < SHARDS) {
            assertThat(now() - start).as("all shards held within %s", bound).isLessThan(bound.toMillis());
            advance(Duration.ofMillis(100));
        }
        return now() - start;
    }

    private long now() {
        return clock.now(TimeUnit.MILLISECONDS);
    }

    @Test
    void aLoneReplicaHoldsEveryShard() {
        Replica a = replica("a");
        advance(Duration.ofSeconds(1));
        assertThat(a.held()).isEqualTo(SHARDS);
        for (int i = 0; i < SHARDS; i++) {
            assertThat(leases.holder(GROUP + "-shard-" + i)).isEqualTo("a");
        }
        assertThat(leases.holder(GROUP + "-member-a")).isEqualTo("a");
        assertThat(leases.get(GROUP + "-shard-0").getMetadata().getLabels())
                .containsEntry(ShardElector.GROUP_LABEL, GROUP);
    }

    @Test
    void joiningReplicasGetAFairShareWithoutAShardEverHeldTwice() {
        Replica a = replica("a");
        advance(Duration.ofSeconds(3));
        Replica b = replica("b");
        advance(Duration.ofSeconds(6)); // a sees b at its next try, gives up 8, b takes them at its next
        assertThat(List.of(a.held(), b.held())).containsExactly(8, 8);

        Replica c = replica("c");
        advance(Duration.ofSeconds(6));
        assertThat(List.of(a.held(), b.held(), c.held())).allMatch(held -> held <= 6);
        assertThat(a.held() + b.held() + c.held()).isEqualTo(SHARDS);

        // and it stays put
        long writes = leases.writes();
        advance(Duration.ofSeconds(60));
        assertThat(List.of(a.held(), b.held(), c.held())).allMatch(held -> held <= 6);
        assertThat(a.held() + b.held() + c.held()).isEqualTo(SHARDS);
        // renewals only: 16 shards and 3 memberships every 2 s
        assertThat(leases.writes() - writes).isEqualTo(30 * (SHARDS + 3));
    }

    @Test
    void theShardsOfAReplicaThatLeavesMoveWithinAboutOneRetryPeriod() {
        Replica a = replica("a");
        Replica b = replica("b");
        Replica c = replica("c");
        advance(Duration.ofSeconds(20));
        assertThat(c.held()).isPositive();

        c.campaign.dispose();
        replicas.remove(c);
        assertThat(c.terms.values()).noneMatch(LeaseTerm::isHeld);
        assertThat(leases.get(GROUP + "-member-c")).isNull();
        long took = untilAllHeld(Duration.ofSeconds(3));
        assertThat(took).isLessThanOrEqualTo(2_000);
        assertThat(List.of(a.held(), b.held())).containsExactly(8, 8);
    }

    @Test
    void theShardsOfAReplicaThatDiesMoveWithinALeaseDurationAndARetryPeriodOfItsLastRenewal() {
        Replica a = replica("a");
        Replica b = replica("b");
        Replica c = replica("c");
        advance(Duration.ofSeconds(20));
        int cHeld = c.held();
        assertThat(cHeld).isPositive();

        // c is cut off from the API server: its renewals fail, it stops at its renew deadline
        c.connection.down = true;
        long lastRenewal = leases.get(GROUP + "-member-c").getSpec().getRenewTime().toInstant().toEpochMilli();
        advance(Duration.ofSeconds(10));
        assertThat(c.held()).isZero();
        assertThat(a.held() + b.held()).isEqualTo(SHARDS - cHeld);

        untilAllHeld(Duration.ofSeconds(20));
        assertThat(now()).isBetween(lastRenewal + 15_000, lastRenewal + 15_000 + 2_000);
        assertThat(List.of(a.held(), b.held())).containsExactly(8, 8);
    }

    /**
     * Four replicas at their fair share (4 of 16 each); one dies and its replacement starts before the dead one's
     * Leases run out, so it counts as live and the survivors stay at a share of 4 when those Leases run out. The
     * replacement may take a Lease that ran out only a lease duration after it first saw it: the survivors take
     * the orphans beyond their shares at once and hand them to the newcomer afterwards.
     */
    @Test
    void theShardsOfADeadReplicaMoveWithinALeaseDurationEvenWhenItsReplacementJoinsMeanwhile() {
        Replica a = replica("a");
        Replica b = replica("b");
        Replica c = replica("c");
        Replica e = replica("e");
        advance(Duration.ofSeconds(30));
        assertThat(List.of(a.held(), b.held(), c.held(), e.held())).containsExactly(4, 4, 4, 4);

        c.connection.down = true;
        long lastRenewal = leases.get(GROUP + "-member-c").getSpec().getRenewTime().toInstant().toEpochMilli();
        advance(Duration.ofSeconds(10));
        assertThat(c.held()).isZero();
        replicas.remove(c);
        // the replacement starts shortly before c's Leases run out
        advance(Duration.ofMillis(lastRenewal + 12_000 - now()));
        Replica d = replica("d");

        untilAllHeld(Duration.ofSeconds(20));
        assertThat(now()).as("every shard held again within a lease duration and a retry period of c's last renewal")
                .isLessThanOrEqualTo(lastRenewal + 15_000 + 2_000);

        // then the newcomer gets shards handed over, and all settle at fair shares
        advance(Duration.ofSeconds(10));
        assertThat(List.of(a.held(), b.held(), d.held(), e.held())).containsExactly(4, 4, 4, 4);
        long writes = leases.writes();
        advance(Duration.ofSeconds(20));
        assertThat(leases.writes() - writes).as("renewals only: 16 shards and 4 memberships every 2 s")
                .isEqualTo(10 * (SHARDS + 4));
    }

    @Test
    void aReplicaLosesAShardAtOnceWhenItSeesSomeoneElseHoldIt() {
        Replica a = replica("a");
        advance(Duration.ofSeconds(1));
        var stolen = leases.get(GROUP + "-shard-3");
        stolen.getSpec().holderIdentity("intruder");
        leases.put(stolen);

        advance(Duration.ofSeconds(2)); // a's next list shows it
        assertThat(a.terms.containsKey(3)).isFalse();
        assertThat(a.held()).isEqualTo(SHARDS - 1);
        // a counts only live members, and the intruder is none: a takes the shard back once it expires
        advance(Duration.ofSeconds(16));
        assertThat(a.held()).isEqualTo(SHARDS);
    }

    @Test
    void publishesShardsHeld() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new Replica("a", registry).start();
        advance(Duration.ofSeconds(1));
        assertThat(registry.get("leader_election_shards_held").tag("name", GROUP).gauge().value()).isEqualTo(SHARDS);
        replica("b");
        advance(Duration.ofSeconds(6));
        assertThat(registry.get("leader_election_shards_held").gauge().value()).isEqualTo(8);
        assertThat(registry.get("leader_election_transitions_total").tag("event", "lost").functionCounter().count())
                .isEqualTo(8);
    }

    @Test
    void shardOfIsThe32BitFnv1aHashModuloTheShards() {
        // FNV-1a test vectors: "a" = 0xe40c292c, "foobar" = 0xbf9cf968
        assertThat(ShardElector.shardOf("a", 65_536)).isEqualTo(0x292c);
        assertThat(ShardElector.shardOf("foobar", 65_536)).isEqualTo(0xf968);
        assertThat(ShardElector.shardOf("foobar", 1)).isZero();
        int[] counts = new int[SHARDS];
        for (int i = 0; i < 16_000; i++) {
            counts[ShardElector.shardOf("default/object-" + i, SHARDS)]++;
        }
        assertThat(java.util.Arrays.stream(counts)).allMatch(n -> n > 850 && n < 1_150);
    }

    @Test
    void namesMustBeValidInLeaseNamesAndLabels() {
        assertThatThrownBy(() -> ShardElector.builder(leases.client(), "Group", "a"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShardElector.builder(leases.client(), GROUP, "pod_1"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
