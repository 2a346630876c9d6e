package io.reactiveinformer.e2e.leader;

import static io.reactiveinformer.e2e.leader.LeaseNamespace.FAST;
import static io.reactiveinformer.e2e.leader.LeaseNamespace.millis;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Lease;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.leaderelection.LeadershipEvent;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;

/**
 * Leader election among three candidates on the real kube-apiserver, with lease 3 s, renew deadline 2 s and
 * retry period 0.5 s, measuring failover times (from cutting the leader off to the next leader's
 * acquisition) over ten failovers each. Times are on one monotonic clock: all candidates run in this JVM.
 */
@KubeApiServerTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaderFailoverE2eTest {

    private static final long LEASE = FAST.leaseDuration().toMillis();
    private static final long RETRY = FAST.retryPeriod().toMillis();
    /** HTTP round trips and thread hand-offs on a shared 2-core machine. */
    private static final long SLACK = 1_000;

    private final KubeApiServer env;
    private LeaseNamespace namespace;
    private final BlockingQueue<Candidate> acquisitions = new LinkedBlockingQueue<>();
    private int next;

    LeaderFailoverE2eTest(KubeApiServer env) {
        this.env = env;
    }

    @BeforeAll
    void createNamespace() {
        namespace = new LeaseNamespace(env, "leader-failover");
    }

    @AfterAll
    void deleteNamespace() {
        namespace.close();
    }

    private final class Candidate {
        final String identity = "candidate-" + next++;
        final LeaderElector elector;
        volatile String seenLeader = "";
        volatile long acquiredAt = -1;
        volatile long lostAt = -1;
        Disposable running;

        Candidate(KubernetesClient client, String lease, boolean releaseOnCancel) {
            elector = LeaderElector.builder(client.resource(V1Lease.class).inNamespace(namespace.name), lease, identity)
                    .timings(FAST).releaseOnCancel(releaseOnCancel).build();
        }

        Candidate start() {
            running = elector.run().subscribe(e -> {
                if (e instanceof LeadershipEvent.NewLeader leader) {
                    seenLeader = leader.holder();
                } else if (e instanceof LeadershipEvent.Acquired) {
                    acquiredAt = millis();
                    acquisitions.add(this);
                } else if (e instanceof LeadershipEvent.Lost) {
                    lostAt = millis();
                }
            });
            return this;
        }
    }

    private Candidate nextLeader() throws InterruptedException {
        Candidate leader = acquisitions.poll(30, TimeUnit.SECONDS);
        assertThat(leader).as("a leader within 30 s").isNotNull();
        return leader;
    }

    /** Until every follower has seen {@code leader} lead, so that each failover starts from the same state. */
    private static void followersSee(List<Candidate> candidates, Candidate leader) {
        Convergence.until(() -> candidates.stream().allMatch(c -> c.seenLeader.equals(leader.identity)),
                Duration.ofSeconds(10), Schedulers.parallel()).block();
    }

    private List<Long> failovers(String lease, boolean release, int count) throws InterruptedException {
        acquisitions.clear();
        List<Candidate> candidates = new ArrayList<>();
        candidates.add(new Candidate(namespace.admin, lease, release).start());
        Candidate leader = nextLeader();
        candidates.add(new Candidate(namespace.admin, lease, release).start());
        candidates.add(new Candidate(namespace.admin, lease, release).start());
        List<Long> times = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                followersSee(candidates, leader);
                long cut = millis();
                leader.running.dispose();
                candidates.remove(leader);
                Candidate successor = nextLeader();
                assertThat(successor).isNotSameAs(leader);
                times.add(successor.acquiredAt - cut);
                candidates.add(new Candidate(namespace.admin, lease, release).start());
                leader = successor;
            }
        } finally {
            candidates.forEach(c -> c.running.dispose());
        }
        return times;
    }

    @Test
    void aLeaderStoppedWithoutReleaseIsReplacedWithinALeaseDurationAndARetryPeriod() throws InterruptedException {
        List<Long> times = failovers("no-release", false, 10);
        System.out.println("failover without release (lease 3 s, retry 0.5 s): " + LeaseNamespace.stats(times));
        // the successor waited for the lease to run out after the leader's last renewal (at most a retry before)
        assertThat(times).allMatch(t -> t >= LEASE - RETRY - 100, "no takeover before the lease ran out")
                .allMatch(t -> t <= LEASE + RETRY + SLACK, "a new leader within lease + retry");
    }

    @Test
    void aLeaderThatReleasesIsReplacedWithinAboutOneRetryPeriod() throws InterruptedException {
        List<Long> times = failovers("release", true, 10);
        System.out.println("failover with release (lease 3 s, retry 0.5 s): " + LeaseNamespace.stats(times));
        assertThat(times).allMatch(t -> t <= RETRY + SLACK, "a new leader within a retry period");
    }

    @Test
    void aLeaderWhoseUpdatesAreForbiddenStopsAtItsRenewDeadlineBeforeItsSuccessorStarts() throws InterruptedException {
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String lease = "forbidden-" + i;
            acquisitions.clear();
            namespace.grantLeases();
            Candidate cut = new Candidate(namespace.restricted, lease, true).start();
            assertThat(nextLeader()).isSameAs(cut);
            List<Candidate> followers = List.of(new Candidate(namespace.admin, lease, true).start(),
                    new Candidate(namespace.admin, lease, true).start());
            try {
                followersSee(followers, cut);
                long revoked = millis();
                namespace.revokeLeases(); // its renewals now fail with 403, while it keeps running
                Candidate successor = nextLeader();
                assertThat(cut.lostAt).as("the cut leader stopped before its successor began").isPositive()
                        .isLessThanOrEqualTo(successor.acquiredAt);
                assertThat(cut.lostAt - revoked).isLessThanOrEqualTo(FAST.renewDeadline().toMillis() + SLACK);
                times.add(successor.acquiredAt - revoked);
            } finally {
                cut.running.dispose();
                followers.forEach(c -> c.running.dispose());
            }
        }
        System.out.println("failover after 403 on renewals (lease 3 s, retry 0.5 s): " + LeaseNamespace.stats(times));
        assertThat(times).allMatch(t -> t <= LEASE + RETRY + SLACK, "a new leader within lease + retry");
    }
}
