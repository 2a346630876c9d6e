package io.reactiveinformer.leaderelection;

import io.kubernetes.client.openapi.models.V1Lease;
import io.reactiveinformer.client.ResourceClient;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Splits a fixed number of shards over the live replicas of a group, one {@code coordination.k8s.io/v1}
 * Lease per shard ({@code <group>-shard-<i>}), so that several replicas of a controller share its keys: key
 * {@code k} belongs to shard {@link #shardOf(String, int) shardOf(k, shards)}, and a replica works only on
 * keys of shards it holds.
 *
 * <h2>Membership and fair share</h2>
 * Each replica keeps a membership Lease ({@code <group>-member-<identity>}), renewed every retry period and
 * deleted when it stops; the live replicas are those whose membership Lease changed within its lease
 * duration by this replica's clock. A replica holds at most {@code ceil(shards / live replicas)} shards: it
 * gives up the excess when others join and takes free or expired shards when others leave or die. Every
 * shard Lease is held and judged exactly like a {@link LeaderElector}'s Lease (optimistic writes, expiry by
 * the observer's clock, renew deadline shorter than the lease duration). Membership Leases are visible
 * ({@code kubectl get leases -l leaderelection.reactiveinformer.io/group=<group>}); those of replicas that
 * crashed stay, expired and ignored, until deleted.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Per shard, and so per key, never two replicas at once: a holder's {@link LeaseTerm} ends (its
 *       work stops) at the renew deadline after its last successful renewal, or before it releases the
 *       shard, while a successor acquires only after the Lease was released or has not changed for a lease
 *       duration by its own clock. This holds as long as the replicas' clocks advance at about the same rate
 *       and a replica reacts to its deadline within {@code leaseDuration - renewDeadline}.</li>
 *   <li>Every shard has a holder within a bounded time: a shard released by a leaving replica is taken at
 *       the others' next try (one retry period); a shard of a replica that died, one lease duration after
 *       the others last saw it renewed, which is at most a retry period after its last renewal. As long
 *       as any replica is live, every shard is held by someone, since the fair shares add up to at least
 *       the number of shards.</li>
 * </ul>
 * A tick whose list or membership write fails (the API server down or refusing) is tried again no sooner
 * than a retry period later (jittered up to 1.2 retry periods more while the replica holds no shard), or
 * after the server's {@code Retry-After} (up to a lease duration) when that is longer.
 *
 * <p>On its own, sharding splits the work, not the watch: every replica's informers cache every object. A
 * controller built with {@code sharding(elector, ShardSelector.Key)} also splits its primary's cache: shard
 * {@code i} is then the hash range {@code ShardRange.split(i, shards)} of the API server's shard selectors, and
 * the replica caches only the ranges it holds.
 *
 * <p><b>Threading:</b> as {@link LeaderElector}; events are {@link LeadershipEvent.Acquired} and
 * {@link LeadershipEvent.Lost} with the shard in {@link LeaseTerm#shard()}.
 */
public final class ShardElector {

    /** The label every Lease of a group carries, valued with the group's name. */
    public static final String GROUP_LABEL = "leaderelection.reactiveinformer.io/group";

    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

    private final LeaseStore store;
    private final String group;
    private final String identity;
    private final int shards;
    private final ElectionTimings timings;
    private final Scheduler scheduler;
    private final Scheduler observers;
    private final ElectionMetrics metrics = new ElectionMetrics();
    private final AtomicBoolean running = new AtomicBoolean();

    private ShardElector(Builder builder) {
        this.store = builder.store;
        this.group = builder.group;
        this.identity = builder.identity;
        this.shards = builder.shards;
        this.timings = builder.timings;
        this.scheduler = builder.scheduler;
        // Subscribers may block on an event (start work, log, call out): Schedulers.boundedElastic(); a test's
        // own (virtual-time) scheduler when one was given.
        this.observers = builder.schedulerSet ? builder.scheduler : Schedulers.boundedElastic();
        Object registry = builder.meterRegistry != null ? builder.meterRegistry : GlobalMeterRegistry.orNull();
        if (registry != null) {
            MicrometerElectionMetrics.register(registry, "leader_election_shards_held", group, metrics);
        }
    }

    /**
     * Shards of {@code group} (a Lease name prefix and label value: lowercase letters, digits, '-', '.', at
     * most 63 characters) in the namespace of {@code leases}, as replica {@code identity} (unique in the
     * group, same characters, e.g. the pod name).
     */
    public static Builder builder(ResourceClient<V1Lease> leases, String group, String identity) {
        return new Builder(new ClientLeaseStore(leases), group, identity);
    }

    static Builder builder(LeaseStore store, String group, String identity) {
        return new Builder(store, group, identity);
    }

    /**
     * The shard of a key: the 32-bit FNV-1a hash of its UTF-8 bytes, modulo {@code shards}. Fixed by this
     * specification, so every replica (any JVM, any version of this library) agrees.
     */
    public static int shardOf(String key, int shards) {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be positive: " + shards);
        }
        int hash = 0x811c9dc5;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x01000193;
        }
        return Integer.remainderUnsigned(hash, shards);
    }

    /** The shard of {@code key} in this group. */
    public int shardOf(String key) {
        return shardOf(key, shards);
    }

    public String group() {
        return group;
    }

    public String identity() {
        return identity;
    }

    public int shards() {
        return shards;
    }

    public ElectionTimings timings() {
        return timings;
    }

    /**
     * Campaigns for a fair share of the shards while subscribed (one subscription at a time, as
     * {@link LeaderElector#run()}). Cancelling ends every term at once, then releases the shards and deletes
     * the membership Lease.
     */
    public Flux<LeadershipEvent> run() {
        return Campaign.exclusive(running, identity + " is already campaigning in " + group, observers,
                sink -> new ShardCampaign(this, store, timings, scheduler, metrics, sink));
    }

    String shardLeaseName(int shard) {
        return group + "-shard-" + shard;
    }

    String memberLeaseName(String member) {
        return group + "-member-" + member;
    }

    String selector() {
        return GROUP_LABEL + "=" + group;
    }

    Map<String, String> labels() {
        return Map.of(GROUP_LABEL, group);
    }

    /** 64-bit FNV-1a of the UTF-8 bytes. */
    static long fnv1a64(String text) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    @Override
    public String toString() {
        return "ShardElector[" + group + ", " + identity + ", " + shards + " shards]";
    }

    /**
     * Configures a {@link ShardElector}. Defaults: 16 shards, {@link ElectionTimings#defaults()},
     * {@link Schedulers#parallel()}, no metrics.
     */
    public static final class Builder {

        private final LeaseStore store;
        private final String group;
        private final String identity;
        private int shards = 16;
        private ElectionTimings timings = ElectionTimings.defaults();
        private Scheduler scheduler = Schedulers.parallel();
        private boolean schedulerSet;
        private Object meterRegistry;

        private Builder(LeaseStore store, String group, String identity) {
            this.store = Objects.requireNonNull(store, "leases");
            this.group = requireName(group, "group", 63);
            this.identity = requireName(identity, "identity", 253 - group.length() - "-member-".length());
        }

        private static String requireName(String value, String what, int maxLength) {
            Objects.requireNonNull(value, what);
            if (!NAME.matcher(value).matches() || value.length() > maxLength) {
                throw new IllegalArgumentException(what + " must be lowercase letters, digits, '-' and '.', at most "
                        + maxLength + " characters: \"" + value + "\"");
            }
            return value;
        }

        /** The number of shards, fixed for the group's lifetime (every replica must agree). Default 16. */
        public Builder shards(int shards) {
            if (shards < 1) {
                throw new IllegalArgumentException("shards must be positive: " + shards);
            }
            this.shards = shards;
            return this;
        }

        public Builder timings(ElectionTimings timings) {
            this.timings = Objects.requireNonNull(timings, "timings");
            return this;
        }

        /** Runs every timer and is the clock. Default {@link Schedulers#parallel()}. */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            this.schedulerSet = true;
            return this;
        }

        /**
         * Publishes {@code leader_election_shards_held} and {@code leader_election_transitions_total}, tagged
         * with the group's name. Default: Micrometer's global registry when Micrometer is on the
         * class path (Spring Boot adds its own registry to it), else none.
         */
        public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        public ShardElector build() {
            return new ShardElector(this);
        }
    }
}
