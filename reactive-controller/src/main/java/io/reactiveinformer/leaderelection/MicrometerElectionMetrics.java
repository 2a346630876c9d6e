package io.reactiveinformer.leaderelection;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * Registers an election's {@link ElectionMetrics} with Micrometer, tagged {@code name=<lease or group>}:
 * {@code leader_election_is_leader} (1 while leading; client-go's name) for a leader election,
 * {@code leader_election_shards_held} for a shard election, and
 * {@code leader_election_transitions_total} with {@code event=acquired|lost}. The only class that registers
 * meters.
 */
final class MicrometerElectionMetrics {

    private MicrometerElectionMetrics() {
    }

    static void register(Object registry, String gauge, String name, ElectionMetrics metrics) {
        MeterRegistry meters = (MeterRegistry) registry;
        Tags tags = Tags.of("name", name);
        Gauge.builder(gauge, metrics, ElectionMetrics::held)
                .tags(tags)
                .description("Leases of this election this replica holds now")
                .strongReference(true)
                .register(meters);
        FunctionCounter.builder("leader_election_transitions_total", metrics, ElectionMetrics::acquisitions)
                .tags(tags.and("event", "acquired"))
                .description("Times this replica acquired or lost a Lease of this election")
                .register(meters);
        FunctionCounter.builder("leader_election_transitions_total", metrics, ElectionMetrics::losses)
                .tags(tags.and("event", "lost"))
                .description("Times this replica acquired or lost a Lease of this election")
                .register(meters);
    }
}
