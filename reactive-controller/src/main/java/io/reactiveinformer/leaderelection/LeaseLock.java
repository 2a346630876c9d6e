package io.reactiveinformer.leaderelection;

import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.KubernetesApiException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * One Lease as one candidate sees it (client-go's {@code tryAcquireOrRenew} around a {@code LeaseLock}).
 *
 * <p>Expiry is judged only from this candidate's own clock: the Lease counts as expired once
 * {@code leaseDurationSeconds} have passed since this candidate <em>last saw it change</em> (a new
 * resourceVersion). The times the holder writes are never compared with the local clock, so skew between
 * machines does not matter; only the rate of the clocks does.
 *
 * <p>Not thread-safe: one operation at a time; the election that owns it runs them one after another.
 */
final class LeaseLock {

    private final LeaseStore store;
    private final String name;
    private final String identity;
    private final ElectionTimings timings;
    private final Map<String, String> labels;
    private final Scheduler clock;

    /** The last record seen, or null when none was seen or the Lease does not exist. */
    private V1Lease observed;
    /** When (clock millis) {@link #observed} was first seen with its resourceVersion. */
    private long observedAt;

    LeaseLock(LeaseStore store, String name, String identity, ElectionTimings timings, Map<String, String> labels,
              Scheduler clock) {
        this.store = store;
        this.name = name;
        this.identity = identity;
        this.timings = timings;
        this.labels = labels;
        this.clock = clock;
    }

    String name() {
        return name;
    }

    /** Reads the Lease and takes note of it. */
    Mono<Void> fetch() {
        return store.get(name)
                .doOnNext(this::observe)
                .switchIfEmpty(Mono.fromRunnable(() -> observe(null)))
                .then();
    }

    /** Takes note of the record as read now ({@code null}: there is no such Lease). */
    void observe(V1Lease record) {
        if (record == null) {
            observed = null;
        } else if (observed == null || !Objects.equals(resourceVersion(observed), resourceVersion(record))) {
            observed = record;
            observedAt = now();
        }
    }

    /** The holder last seen, or "" for none. */
    String holder() {
        return holderOf(observed);
    }

    boolean heldByMe() {
        return identity.equals(holder());
    }

    /**
     * Whether this candidate may write itself in as holder now: the Lease is missing, free, ours, or has not
     * changed for its lease duration by our clock.
     */
    boolean acquirable() {
        String holder = holder();
        return holder.isEmpty() || holder.equals(identity) || now() >= expiresAt();
    }

    /** When the holder last seen loses it by our clock, if it does not renew (clock millis). */
    long expiresAt() {
        if (observed == null) {
            return now();
        }
        Integer seconds = observed.getSpec() == null ? null : observed.getSpec().getLeaseDurationSeconds();
        long millis = seconds != null && seconds > 0 ? seconds * 1000L : timings.leaseDuration().toMillis();
        return observedAt + millis;
    }

    /**
     * Writes this candidate in as the holder (renewing when it is already), on the record last seen: emits
     * whether it succeeded. A Conflict (someone else wrote since) emits false and forgets the record, so that
     * the next {@link #fetch()} reads the current one.
     *
     * @param start when the attempt started (clock millis): the time written into the Lease
     */
    Mono<Boolean> acquireOrRenew(long start) {
        OffsetDateTime now = timestamp(start);
        Mono<V1Lease> write;
        if (observed == null) {
            write = store.create(new V1Lease().apiVersion("coordination.k8s.io/v1").kind("Lease")
                    .metadata(new V1ObjectMeta().name(name).labels(labels.isEmpty() ? null : labels))
                    .spec(new V1LeaseSpec().holderIdentity(identity).leaseDurationSeconds(timings.leaseSeconds())
                            .acquireTime(now).renewTime(now).leaseTransitions(0)));
        } else {
            V1LeaseSpec old = observed.getSpec() == null ? new V1LeaseSpec() : observed.getSpec();
            boolean renewal = heldByMe();
            int transitions = old.getLeaseTransitions() == null ? 0 : old.getLeaseTransitions();
            V1LeaseSpec spec = new V1LeaseSpec().holderIdentity(identity).leaseDurationSeconds(timings.leaseSeconds())
                    .renewTime(now)
                    .acquireTime(renewal && old.getAcquireTime() != null ? old.getAcquireTime() : now)
                    .leaseTransitions(renewal ? transitions : transitions + 1);
            write = store.replace(new V1Lease().apiVersion("coordination.k8s.io/v1").kind("Lease").metadata(observed.getMetadata()).spec(spec));
        }
        return write.map(written -> {
                    observe(written);
                    return true;
                })
                .onErrorResume(KubernetesApiException.Conflict.class, e -> {
                    observed = null;
                    return Mono.just(false);
                });
    }

    /**
     * {@link #acquireOrRenew} at the moment of subscription: emits when the successful write was sent (clock
     * millis), which is when the writer's renew deadline starts counting, or -1 after a Conflict. Measured
     * at the write, not before a preceding read, since only the write can make others wait.
     */
    Mono<Long> acquireOrRenewNow() {
        return Mono.defer(() -> {
            long sent = now();
            return acquireOrRenew(sent).map(ok -> ok ? sent : -1L);
        });
    }

    /**
     * Gives the Lease up if this candidate holds it, as client-go does: no holder and a one-second lease, so
     * that a successor takes over at once. Completes also when someone else wrote it meanwhile.
     */
    Mono<Void> release() {
        if (observed == null || !heldByMe()) {
            return Mono.empty();
        }
        // A conflict means the Lease was written since it was last read: most often by this candidate's own
        // renewal, sent just before the stop and applied although its answer was never read. Left as it is,
        // the successor would wait for the Lease to expire; so read it again and release it if it is still ours.
        return replaceWithReleased()
                .onErrorResume(KubernetesApiException.Conflict.class, stale -> fetch()
                        .then(Mono.defer(() -> heldByMe() ? replaceWithReleased() : Mono.<Void>empty()))
                        .onErrorResume(KubernetesApiException.Conflict.class, e -> Mono.empty()));
    }

    private Mono<Void> replaceWithReleased() {
        OffsetDateTime now = timestamp(now());
        V1LeaseSpec old = observed.getSpec();
        V1LeaseSpec spec = new V1LeaseSpec().holderIdentity(null).leaseDurationSeconds(1).acquireTime(now).renewTime(now)
                .leaseTransitions(old.getLeaseTransitions());
        return store.replace(new V1Lease().apiVersion("coordination.k8s.io/v1").kind("Lease").metadata(observed.getMetadata()).spec(spec))
                .doOnNext(this::observe)
                .then();
    }

    static String holderOf(V1Lease lease) {
        String holder = lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
        return holder == null ? "" : holder;
    }

    private static String resourceVersion(V1Lease lease) {
        return lease.getMetadata() == null ? null : lease.getMetadata().getResourceVersion();
    }

    private long now() {
        return clock.now(TimeUnit.MILLISECONDS);
    }

    private static OffsetDateTime timestamp(long millis) {
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
    }

    @Override
    public String toString() {
        return "Lease " + name + " (holder " + (holder().isEmpty() ? "none" : holder()) + ")";
    }
}
