package io.reactiveinformer.leaderelection;

import io.kubernetes.client.openapi.models.V1Lease;
import io.reactiveinformer.client.ResourceClient;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Leader election on a {@code coordination.k8s.io/v1} Lease (client-go's {@code leaderelection} with a
 * {@code LeaseLock}): of all replicas campaigning for the same Lease, at most one leads at a time.
 *
 * <h2>Semantics</h2>
 * A candidate reads the Lease and writes itself in as holder when the Lease is missing, has no holder, or
 * has not changed for its {@code leaseDurationSeconds} <em>by the candidate's own clock</em> (counted from
 * when the candidate first saw its current version: the holder's timestamps are never compared with local
 * time, so clock skew between machines is irrelevant). Every write is conditional on the
 * {@code resourceVersion} read, so of two candidates only one succeeds (the other gets a 409 Conflict). The
 * holder renews every retry period; if it has not renewed successfully within the renew deadline, counted
 * from the start of its last successful renewal, it stops leading, which is before any other candidate
 * may take over. While another candidate holds the Lease, candidates read it every retry period and at
 * the moment its lease runs out by their clock, so they take over at most a lease duration plus a retry
 * period after the holder's last renewal; a free Lease is retried with jitter (up to 1.2 retry periods
 * more). A request that fails (the API server down or refusing: connection refused, 403, 429, 5xx) is
 * tried again no sooner than a retry period later (a candidate's wait jittered as above), or after the
 * server's {@code Retry-After} (up to a lease duration) when that is longer: never in a tight loop.
 *
 * <h2>Use</h2>
 * {@link #run()} campaigns while subscribed and reports {@link LeadershipEvent}s; after losing the Lease it
 * campaigns again. Each {@link LeadershipEvent.Acquired} carries a {@link LeaseTerm} to gate work with.
 * {@link #whileLeading} runs a publisher only while leading. Cancelling the subscription ends the term at
 * once and then (by default) releases the Lease, so a successor takes over within about one retry
 * period instead of a lease duration.
 *
 * <p><b>Threading:</b> the {@linkplain Builder#scheduler scheduler} runs every timer and is the clock;
 * pass a {@code VirtualTimeScheduler} in tests. Events are few, buffered until requested, and handed to
 * the subscriber on {@link Schedulers#boundedElastic()} (on the scheduler, when one was set), never inline
 * on the campaign's timer: a subscriber that blocks on {@code Acquired} delays its own next events, not
 * the renewals that keep its term.
 */
public final class LeaderElector {

    private final LeaseStore store;
    private final String leaseName;
    private final String identity;
    private final ElectionTimings timings;
    private final Scheduler scheduler;
    private final Scheduler observers;
    private final boolean releaseOnCancel;
    private final ElectionMetrics metrics = new ElectionMetrics();
    private final AtomicBoolean running = new AtomicBoolean();

    private LeaderElector(Builder builder) {
        this.store = builder.store;
        this.leaseName = builder.leaseName;
        this.identity = builder.identity;
        this.timings = builder.timings;
        this.scheduler = builder.scheduler;
        // Subscribers may block on an event (start work, log, call out): Schedulers.boundedElastic(); a test's
        // own (virtual-time) scheduler when one was given.
        this.observers = builder.schedulerSet ? builder.scheduler : Schedulers.boundedElastic();
        this.releaseOnCancel = builder.releaseOnCancel;
        Object registry = builder.meterRegistry != null ? builder.meterRegistry : GlobalMeterRegistry.orNull();
        if (registry != null) {
            MicrometerElectionMetrics.register(registry, "leader_election_is_leader", leaseName, metrics);
        }
    }

    /**
     * An election on the Lease {@code leaseName} in the namespace of {@code leases} (choose it with
     * {@code inNamespace}), as candidate {@code identity}, which must be unique among the candidates (e.g. the
     * pod name).
     */
    public static Builder builder(ResourceClient<V1Lease> leases, String leaseName, String identity) {
        return new Builder(new ClientLeaseStore(leases), leaseName, identity);
    }

    static Builder builder(LeaseStore store, String leaseName, String identity) {
        return new Builder(store, leaseName, identity);
    }

    public String leaseName() {
        return leaseName;
    }

    public String identity() {
        return identity;
    }

    public ElectionTimings timings() {
        return timings;
    }

    /**
     * Campaigns while subscribed (one subscription at a time: a second concurrent one fails with
     * {@link IllegalStateException}, since two campaigns of one identity would take each other for the
     * holder). Never completes; errors only for that reason. Cancel to stop; see the class documentation.
     */
    public Flux<LeadershipEvent> run() {
        return Campaign.exclusive(running, identity + " is already campaigning for " + leaseName, observers,
                sink -> new LeaderCampaign(new LeaseLock(store, leaseName, identity, timings, Map.of(), scheduler),
                        identity, timings, scheduler, releaseOnCancel, metrics, new SplittableRandom(), sink));
    }

    /**
     * Campaigns, and subscribes to a new publisher from {@code work} each time this replica becomes leader;
     * the publisher is cancelled when its term ends (before another replica may lead). Emits what the
     * publishers emit; cancelling the result stops both, then releases the Lease.
     */
    public <T> Flux<T> whileLeading(Supplier<? extends Publisher<T>> work) {
        Objects.requireNonNull(work, "work");
        return run()
                .filter(e -> !(e instanceof LeadershipEvent.NewLeader))
                .switchMap(e -> e instanceof LeadershipEvent.Acquired acquired
                        ? Flux.defer(work).takeUntilOther(acquired.term().ended())
                        : Flux.empty(), 0);
    }

    @Override
    public String toString() {
        return "LeaderElector[" + leaseName + ", " + identity + "]";
    }

    /**
     * Configures a {@link LeaderElector}. Defaults: {@link ElectionTimings#defaults()}, release on cancel,
     * {@link Schedulers#parallel()}, no metrics.
     */
    public static final class Builder {

        private final LeaseStore store;
        private final String leaseName;
        private final String identity;
        private ElectionTimings timings = ElectionTimings.defaults();
        private Scheduler scheduler = Schedulers.parallel();
        private boolean schedulerSet;
        private boolean releaseOnCancel = true;
        private Object meterRegistry;

        private Builder(LeaseStore store, String leaseName, String identity) {
            this.store = Objects.requireNonNull(store, "leases");
            this.leaseName = requireName(leaseName, "leaseName");
            this.identity = requireName(identity, "identity");
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

        /** Whether cancelling gives the Lease up (default true) or lets it expire. */
        public Builder releaseOnCancel(boolean releaseOnCancel) {
            this.releaseOnCancel = releaseOnCancel;
            return this;
        }

        /**
         * Publishes {@code leader_election_is_leader} and {@code leader_election_transitions_total}, tagged
         * with the Lease's name. Default: Micrometer's global registry when Micrometer is on the
         * class path (Spring Boot adds its own registry to it), else none.
         */
        public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        public LeaderElector build() {
            return new LeaderElector(this);
        }
    }

    static String requireName(String value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return value;
    }
}
