package io.reactiveinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

/**
 * A subscriber of the leadership events that blocks on {@code Acquired} (starting its work, say) for four
 * renew deadlines, on real threads with the default schedulers. Before issue 30 the event was handed to it
 * inline on the campaign's timer, so no renewal ran meanwhile and the term ended under it; now it runs on
 * its own thread and the term survives, renewed all along.
 */
@Timeout(30)
class SlowLeadershipObserverTest {

    private static final ElectionTimings FAST =
            new ElectionTimings(Duration.ofSeconds(1), Duration.ofMillis(500), Duration.ofMillis(100));

    @Test
    void aSubscriberBlockingOnAcquiredDoesNotCostTheTerm() throws InterruptedException {
        InMemoryLeases leases = new InMemoryLeases();
        LeaderElector elector = LeaderElector.builder(leases.client(), "lease", "a").timings(FAST).build();
        Set<String> threads = ConcurrentHashMap.newKeySet();
        AtomicInteger lost = new AtomicInteger();
        CountDownLatch unblocked = new CountDownLatch(1);
        LeaseTerm[] term = new LeaseTerm[1];
        int writesBefore = leases.writes();
        Disposable running = elector.run().subscribe(event -> {
            threads.add(Thread.currentThread().getName());
            if (event instanceof LeadershipEvent.Acquired acquired) {
                term[0] = acquired.term();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(4 * FAST.renewDeadline().toMillis()));
                unblocked.countDown();
            } else if (event instanceof LeadershipEvent.Lost) {
                lost.incrementAndGet();
            }
        });
        try {
            assertThat(unblocked.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(term[0].isHeld()).as("renewed while its subscriber blocked").isTrue();
            assertThat(lost.get()).isZero();
            assertThat(leases.holder("lease")).isEqualTo("a");
            assertThat(leases.writes() - writesBefore).as("the acquisition and the renewals during the block")
                    .isGreaterThan(5);
            assertThat(threads).allSatisfy(name -> assertThat(name).startsWith("boundedElastic"));
        } finally {
            running.dispose();
        }
    }
}
