package io.reactiveinformer.leaderelection;

/**
 * What an election reports (client-go's {@code OnStartedLeading}, {@code OnStoppedLeading} and
 * {@code OnNewLeader}, per shard for a {@link ShardElector}).
 */
public sealed interface LeadershipEvent {

    /** This replica acquired a Lease; {@code term} says while it holds it. */
    record Acquired(LeaseTerm term) implements LeadershipEvent {
    }

    /**
     * This replica no longer holds the Lease of {@code term} (renewal failed until the deadline, someone else
     * holds it, or it gave it up); the term has ended before this is emitted.
     */
    record Lost(LeaseTerm term) implements LeadershipEvent {
    }

    /** The holder of the Lease (this replica or another) is now {@code holder}, as this replica observed. */
    record NewLeader(String leaseName, String holder) implements LeadershipEvent {
    }
}
