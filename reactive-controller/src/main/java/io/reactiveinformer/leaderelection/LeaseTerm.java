package io.reactiveinformer.leaderelection;

import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * One uninterrupted period during which this replica holds a Lease: the leader's Lease, or one shard's.
 * It is {@linkplain #isHeld() held} from the successful write that acquired the Lease until the earliest of:
 * a renewal fails to succeed within the renew deadline (counted from the start of the last successful
 * renewal, by the election's scheduler clock), someone else is seen holding the Lease, the Lease is given up
 * (fair share or cancellation). Once it is no longer held it never is again; a later acquisition is a new
 * term.
 *
 * <p>Work that must never overlap with another holder's checks {@link #isHeld()} right before it starts
 * and stops when {@link #ended()} completes: the term ends before any other candidate may take the Lease
 * over (the renew deadline is shorter than the lease duration), so work stopped at that moment never
 * overlaps the successor's.
 *
 * <p>Thread-safe.
 */
public final class LeaseTerm {

    private final String leaseName;
    private final int shard;
    private final Scheduler clock;
    private final Sinks.Empty<Void> ended = Sinks.empty();
    private volatile long deadline;
    private volatile boolean over;

    LeaseTerm(String leaseName, int shard, Scheduler clock, long deadline) {
        this.leaseName = leaseName;
        this.shard = shard;
        this.clock = clock;
        this.deadline = deadline;
    }

    /** The Lease's name. */
    public String leaseName() {
        return leaseName;
    }

    /** The shard this term holds, 0 for a leader election. */
    public int shard() {
        return shard;
    }

    /** Whether this replica can still be sure it holds the Lease: not ended and before the renew deadline. */
    public boolean isHeld() {
        return !over && clock.now(TimeUnit.MILLISECONDS) < deadline;
    }

    /** Completes when the term ends (at once if it has); never errors. */
    public Mono<Void> ended() {
        return ended.asMono();
    }

    /** The renew deadline (clock millis). */
    long deadline() {
        return deadline;
    }

    void extend(long newDeadline) {
        deadline = Math.max(deadline, newDeadline);
    }

    /** Ends the term; true the first time. */
    boolean end() {
        synchronized (this) {
            if (over) {
                return false;
            }
            over = true;
        }
        ended.tryEmitEmpty();
        return true;
    }

    @Override
    public String toString() {
        return "LeaseTerm[" + leaseName + (over ? ", ended]" : ", deadline " + deadline + "]");
    }
}
