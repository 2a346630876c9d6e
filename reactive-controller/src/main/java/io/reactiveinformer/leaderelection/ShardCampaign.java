package io.reactiveinformer.leaderelection;

import io.kubernetes.client.openapi.models.V1Lease;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * One subscription of {@link ShardElector#run()}. Every retry period it lists the group's Leases (one
 * request), renews its membership Lease, counts the live members (membership Leases that changed within
 * their lease duration by this replica's clock), and moves towards its fair share
 * {@code ceil(shards / live members)}: it renews the shards it holds, gives up the least preferred ones
 * beyond its share when another live replica is short of its own (ending their terms before writing the
 * release), and acquires free or expired ones up to its share, most preferred first (preference: a hash of
 * identity and shard, so replicas prefer different shards and rarely race for one). Orphans, shards whose
 * holder is no longer live and whose Lease ran out, are taken at once by the settled replicas (known for a
 * lease duration) whatever their shares, spread by load the same way on every replica, and handed over to
 * short replicas once none is left: so a dead replica's shards are held again within a lease duration and a
 * retry period of its last renewal even when its replacement, which counts as live but can take a Lease
 * that ran out only a lease duration after it first saw it, joined meanwhile. A shard term ends as a
 * leader's does: renewal not successful by the renew deadline, or someone else seen holding it.
 *
 * <p>Every step runs as a task of one worker of the scheduler, as in {@link LeaderCampaign}.
 */
final class ShardCampaign implements Campaign {

    private static final Logger log = LoggerFactory.getLogger(ShardCampaign.class);

    /** {@code sent}: when the successful write was sent (clock millis), or -1. */
    private record Written(int shard, long sent) {
    }

    private final ShardElector elector;
    private final LeaseStore store;
    private final ElectionTimings timings;
    private final Scheduler scheduler;
    private final Scheduler.Worker worker;
    private final ElectionMetrics metrics;
    private final FluxSink<LeadershipEvent> events;
    private final LeaseLock member;
    private final LeaseLock[] shards;
    private final AtomicReferenceArray<LeaseTerm> terms;
    private final Disposable[] deadlines;
    private final List<Integer> preference;
    private final Map<String, LeaseLock> others = new HashMap<>();
    /** When each other member's Lease was first seen (clock millis); used on the worker only. */
    private final Map<String, Long> firstSeen = new HashMap<>();
    private final Disposable.Swap pending = Disposables.swap();
    /** Jitters the retries of a replica holding no shard; used on the worker only. */
    private final RandomGenerator random = new SplittableRandom();
    private volatile boolean stopped;
    /** When the campaign started (clock millis). */
    private long startedAt;

    ShardCampaign(ShardElector elector, LeaseStore store, ElectionTimings timings, Scheduler scheduler,
                  ElectionMetrics metrics, FluxSink<LeadershipEvent> events) {
        this.elector = elector;
        this.store = store;
        this.timings = timings;
        this.scheduler = scheduler;
        this.worker = scheduler.createWorker();
        this.metrics = metrics;
        this.events = events;
        int n = elector.shards();
        this.member = lock(elector.memberLeaseName(elector.identity()));
        this.shards = new LeaseLock[n];
        for (int i = 0; i < n; i++) {
            shards[i] = lock(elector.shardLeaseName(i));
        }
        this.terms = new AtomicReferenceArray<>(n);
        this.deadlines = new Disposable[n];
        this.preference = IntStream.range(0, n).boxed()
                .sorted(Comparator.comparingLong((Integer i) -> preferenceOf(elector.identity(), i)).reversed())
                .toList();
    }

    private LeaseLock lock(String name) {
        return new LeaseLock(store, name, elector.identity(), timings, elector.labels(), scheduler);
    }

    /** Rendezvous hashing: each replica ranks the shards differently, and the ranking is stable. */
    static long preferenceOf(String identity, int shard) {
        return ShardElector.fnv1a64(identity + "/" + shard);
    }

    @Override
    public void start() {
        startedAt = now();
        worker.schedule(this::tick);
    }

    private void tick() {
        if (stopped) {
            return;
        }
        pending.update(store.list(elector.selector()).collectList()
                .timeout(timings.renewDeadline(), scheduler)
                .subscribe(leases -> worker.schedule(() -> listed(leases)),
                        error -> worker.schedule(() -> failed("listing", error))));
    }

    private void listed(List<V1Lease> leases) {
        if (stopped) {
            return;
        }
        Map<String, V1Lease> byName = new HashMap<>();
        for (V1Lease lease : leases) {
            byName.put(lease.getMetadata().getName(), lease);
        }
        member.observe(byName.get(member.name()));
        for (LeaseLock shard : shards) {
            shard.observe(byName.get(shard.name()));
        }
        String memberPrefix = elector.memberLeaseName("");
        others.keySet().retainAll(byName.keySet());
        firstSeen.keySet().retainAll(byName.keySet());
        for (V1Lease lease : leases) {
            String name = lease.getMetadata().getName();
            if (name.startsWith(memberPrefix) && !name.equals(member.name())) {
                others.computeIfAbsent(name, this::lock).observe(lease);
                firstSeen.putIfAbsent(name, now());
            }
        }
        for (int i = 0; i < shards.length; i++) {
            if (terms.get(i) != null && !shards[i].holder().isEmpty() && !shards[i].heldByMe()) {
                lose(i, "it is held by " + shards[i].holder());
            }
        }
        long now = now();
        Members members = members(now);
        int live = 1 + members.live();
        int share = (shards.length + live - 1) / live;
        List<Integer> held = preference.stream().filter(i -> terms.get(i) != null).toList();
        List<Integer> orphans = preference.stream()
                .filter(i -> terms.get(i) == null && isOrphan(shards[i], members, now)).toList();
        // shards held beyond the share are kept until a live replica is short of its own and no orphan is left
        // (handing one over while orphans are being taken would only move the gap), then handed over
        int keep = orphans.isEmpty() ? Math.max(share, held.size() - members.shortfall(share)) : held.size();

        List<Mono<Written>> writes = new ArrayList<>();
        writes.add(member.acquireOrRenewNow().map(sent -> new Written(-1, sent)));
        for (int k = 0; k < held.size(); k++) {
            int shard = held.get(k);
            if (k < keep) {
                writes.add(write(shard));
            } else {
                lose(shard, "its fair share is " + share + " of " + shards.length + " shards with " + live
                        + " live replicas");
                writes.add(shards[shard].release().thenReturn(new Written(shard, -1)));
            }
        }
        int wanted = share - Math.min(share, held.size());
        for (int shard : preference) {
            if (wanted == 0) {
                break;
            }
            if (terms.get(shard) == null && shards[shard].acquirable() && !orphans.contains(shard)) {
                writes.add(write(shard));
                wanted--;
            }
        }
        // Orphans go at once to the settled replicas, whatever the shares: a newcomer, which counts as live, may
        // take a Lease that ran out only a lease duration after it first saw it, and the orphans would wait for
        // it. Every replica computes the same assignment from what it sees, so they rarely race for one; the
        // shares are restored by the hand-over above once the orphans are held.
        boolean meSettled = now - startedAt >= timings.leaseDuration().toMillis();
        for (int shard : members.assign(orphans, meSettled ? elector.identity() : null, held.size())) {
            writes.add(write(shard));
        }
        pending.update(Flux.merge(writes)
                .collectList()
                .timeout(timings.renewDeadline(), scheduler)
                .subscribe(results -> worker.schedule(() -> written(results)),
                        error -> worker.schedule(() -> failed("writing", error))));
    }

    /**
     * The other live replicas (membership Lease not run out by our clock) by identity, with how many shards each
     * holds (Leases not run out), and those of them known for at least a lease duration: settled, so able to
     * take a Lease that ran out (a newcomer may only a lease duration after it first saw it).
     */
    private record Members(Map<String, Integer> held, List<String> settledOthers) {

        int live() {
            return held.size();
        }

        /**
         * The orphans {@code me} takes, when it is settled and holds {@code meHeld} shards: in shard order, each
         * goes to the settled replica holding the fewest, ties to the one that prefers the shard most.
         */
        List<Integer> assign(List<Integer> orphans, String me, int meHeld) {
            if (me == null) {
                return List.of();
            }
            Map<String, Integer> load = new HashMap<>();
            settledOthers.forEach(id -> load.put(id, held.get(id)));
            load.put(me, meHeld);
            List<Integer> mine = new ArrayList<>();
            for (int shard : orphans.stream().sorted().toList()) {
                String owner = load.entrySet().stream()
                        .min(Comparator.comparingInt((Map.Entry<String, Integer> e) -> e.getValue())
                                .thenComparing(e -> -preferenceOf(e.getKey(), shard)))
                        .orElseThrow().getKey();
                load.merge(owner, 1, Integer::sum);
                if (owner.equals(me)) {
                    mine.add(shard);
                }
            }
            return mine;
        }

        /** How many shards the live others lack to reach their shares. */
        int shortfall(int share) {
            return held.values().stream().mapToInt(h -> Math.max(0, share - h)).sum();
        }
    }

    private Members members(long now) {
        Map<String, Integer> held = new HashMap<>();
        List<String> settled = new ArrayList<>();
        for (Map.Entry<String, LeaseLock> other : others.entrySet()) {
            LeaseLock lock = other.getValue();
            if (!lock.holder().isEmpty() && now < lock.expiresAt()) {
                held.put(lock.holder(), 0);
                if (now - firstSeen.get(other.getKey()) >= timings.leaseDuration().toMillis()) {
                    settled.add(lock.holder());
                }
            }
        }
        for (LeaseLock shard : shards) {
            if (held.containsKey(shard.holder()) && now < shard.expiresAt()) {
                held.merge(shard.holder(), 1, Integer::sum);
            }
        }
        return new Members(held, settled);
    }

    /** A shard whose holder is no live replica and whose Lease ran out: no one will renew it. */
    private boolean isOrphan(LeaseLock shard, Members members, long now) {
        String holder = shard.holder();
        return !holder.isEmpty() && !shard.heldByMe() && !members.held().containsKey(holder)
                && now >= shard.expiresAt();
    }

    private Mono<Written> write(int shard) {
        return shards[shard].acquireOrRenewNow()
                .map(sent -> new Written(shard, sent))
                .onErrorResume(error -> {
                    log.warn("{}: writing {} failed: {}", elector.identity(), shards[shard].name(), error.toString());
                    return Mono.just(new Written(shard, -1));
                });
    }

    private void written(List<Written> results) {
        if (stopped) {
            return;
        }
        for (Written result : results) {
            int i = result.shard();
            if (i < 0) {
                continue;
            }
            LeaseTerm term = terms.get(i);
            if (term != null && !term.isHeld()) {
                // past its deadline, the deadline's task late: over, as in LeaderCampaign.attempted
                lose(i, "it was not renewed within " + timings.renewDeadline());
                term = null;
            }
            long deadline = result.sent() + timings.renewDeadline().toMillis();
            // a write answered only after its own deadline gives no term: others may take over any moment
            if (result.sent() >= 0 && deadline > now()) {
                if (term == null) {
                    term = new LeaseTerm(shards[i].name(), i, scheduler, deadline);
                    terms.set(i, term);
                    metrics.acquired();
                    log.debug("{} acquired shard {}", elector.identity(), i);
                    events.next(new LeadershipEvent.Acquired(term));
                } else {
                    term.extend(deadline);
                }
                watchDeadline(i, term);
            } else if (term != null && !shards[i].holder().isEmpty() && !shards[i].heldByMe()) {
                lose(i, "it is held by " + shards[i].holder());
            }
        }
        next();
    }

    private void failed(String what, Throwable error) {
        if (stopped) {
            return;
        }
        log.warn("{}: {} the shard Leases of {} failed: {}", elector.identity(), what, elector.group(),
                error.toString());
        pending.update(worker.schedule(this::tick, afterFailure(error), TimeUnit.MILLISECONDS));
    }

    /**
     * The wait after a failed list or membership write: never shorter than a retry period, and not shortened
     * by a Lease running out meanwhile (what this replica saw of the Leases is no newer than before the
     * failure). While it holds shards, a plain retry period, as a leader renews; holding none, a jittered one
     * ({@link RetryDelays}), so that replicas cut off together come back spread out. At least the server's
     * {@code Retry-After}, when it sent a longer one.
     */
    private long afterFailure(Throwable error) {
        boolean holding = false;
        for (int i = 0; i < terms.length() && !holding; i++) {
            holding = terms.get(i) != null;
        }
        long floor = holding ? timings.retryPeriod().toMillis() : RetryDelays.jittered(timings, random);
        return RetryDelays.afterFailure(error, floor, timings);
    }

    /**
     * After a tick that went through: in a retry period, or sooner when a Lease seen held by someone else runs
     * out by our clock. Only an expiry still ahead counts, so each one wakes a tick at most once: the floor
     * stays a retry period however the writes of that tick fail.
     */
    private void next() {
        long now = now();
        long wake = now + timings.retryPeriod().toMillis();
        for (LeaseLock lock : others.values()) {
            wake = expiringBefore(lock, now, wake);
        }
        for (LeaseLock shard : shards) {
            wake = expiringBefore(shard, now, wake);
        }
        pending.update(worker.schedule(this::tick, wake - now, TimeUnit.MILLISECONDS));
    }

    private static long expiringBefore(LeaseLock lock, long now, long wake) {
        if (lock.holder().isEmpty() || lock.heldByMe()) {
            return wake;
        }
        long expiry = lock.expiresAt();
        return expiry > now && expiry < wake ? expiry : wake;
    }

    private void watchDeadline(int shard, LeaseTerm term) {
        if (deadlines[shard] != null) {
            deadlines[shard].dispose();
        }
        deadlines[shard] = worker.schedule(() -> {
            if (terms.get(shard) == term && !term.isHeld()) {
                lose(shard, "it was not renewed within " + timings.renewDeadline());
            } else if (terms.get(shard) == term) {
                watchDeadline(shard, term);
            }
        }, Math.max(0, term.deadline() - now()), TimeUnit.MILLISECONDS);
    }

    private void lose(int shard, String why) {
        LeaseTerm term = terms.get(shard);
        terms.set(shard, null);
        if (deadlines[shard] != null) {
            deadlines[shard].dispose();
            deadlines[shard] = null;
        }
        if (term != null && term.end()) {
            metrics.lost();
            log.info("{} gave up shard {}: {}", elector.identity(), shard, why);
            events.next(new LeadershipEvent.Lost(term));
        }
    }

    private long now() {
        return scheduler.now(TimeUnit.MILLISECONDS);
    }

    /**
     * Ends every term at once, then releases the shards this replica holds and deletes its membership Lease,
     * so that the others take its shards over at their next try.
     */
    @Override
    public void dispose() {
        if (stopped) {
            return;
        }
        stopped = true;
        pending.dispose();
        endTerms();
        worker.schedule(() -> {
            endTerms();
            List<Mono<Void>> releases = new ArrayList<>();
            for (int i = 0; i < shards.length; i++) {
                if (deadlines[i] != null) {
                    deadlines[i].dispose();
                }
                releases.add(shards[i].release());
            }
            Mono.when(releases)
                    .then(store.delete(member.name()))
                    .timeout(timings.renewDeadline(), scheduler)
                    .doFinally(signal -> worker.dispose())
                    .subscribe(null, e -> log.warn("{}: releasing the shards of {} failed: {}", elector.identity(),
                            elector.group(), e.toString()));
        });
    }

    /** Safe from any thread: ending a term is idempotent. */
    private void endTerms() {
        for (int i = 0; i < terms.length(); i++) {
            LeaseTerm term = terms.get(i);
            if (term != null && term.end()) {
                metrics.lost();
            }
        }
    }

    @Override
    public boolean isDisposed() {
        return stopped;
    }
}
