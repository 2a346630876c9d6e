package io.reactiveinformer.leaderelection;

import reactor.core.scheduler.Scheduler;

/** Electors on {@link InMemoryLeases}, for tests outside this package. */
public final class TestElectors {

    private TestElectors() {
    }

    public static LeaderElector leader(InMemoryLeases.Client connection, String lease, String identity, Scheduler clock) {
        return LeaderElector.builder(connection, lease, identity).scheduler(clock).build();
    }

    public static ShardElector shards(InMemoryLeases.Client connection, String group, String identity, int shards,
                                      Scheduler clock) {
        return ShardElector.builder(connection, group, identity).shards(shards).scheduler(clock).build();
    }
}
