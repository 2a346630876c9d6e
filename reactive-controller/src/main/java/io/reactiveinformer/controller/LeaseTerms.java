package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ShardRange;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.leaderelection.LeaseTerm;
import io.reactiveinformer.leaderelection.LeadershipEvent;
import io.reactiveinformer.leaderelection.ShardElector;
import io.reactiveinformer.workqueue.Priority;
import io.reactiveinformer.workqueue.WorkQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * The {@link LeaseTerm}s a controller's replica holds, by shard (a single one for a leader election),
 * kept from its elector's {@link LeadershipEvent}s (see {@link Controller}, "Several replicas"). Each time
 * a Lease is acquired, the primary objects of its shard in the cache are queued at {@link Priority#LOW},
 * so nothing the previous holder left pending is lost.
 *
 * <p>With shards of the primary's cache ({@link Controller.Builder#sharding(ShardElector, ShardSelector.Key)}),
 * shard {@code i} of {@code n} is the hash range {@link ShardRange#split split(i, n)}, and the primary
 * informer caches only the ranges held: an acquired shard widens its selection and is reconciled (its term
 * becomes visible to {@link #termOf}, its objects are queued) only once the informer's relist with it is
 * applied; a lost one narrows it, and its objects leave the cache.
 *
 * <p>The events arrive on the elector's threads, the relists complete on the informer's; {@link #termOf} is
 * read by the queue's workers, hence the atomic array. The shards waiting for their relist are guarded by
 * this object's monitor, which is held for no call out.
 */
final class LeaseTerms {

    /** The controller's logger: these lines are the controller's. */
    private static final Logger log = LoggerFactory.getLogger(Controller.class);

    private final Flux<LeadershipEvent> election;
    private final ToIntFunction<Request> shardOf;
    private final AtomicReferenceArray<LeaseTerm> terms;
    /** The key the primary's cache is sharded on; null when every replica caches every object. */
    private final ShardSelector.Key cacheKey;

    /** An acquired term whose shard's objects the cache does not hold yet, and the selection that asked for them. */
    private record Awaiting(LeaseTerm term, long selection) {
    }

    // Guarded by this, with cacheKey only. A selection is the set of shards at one change of it, numbered.
    private final Map<Integer, Awaiting> awaitingRelist = new HashMap<>();
    private final Set<Integer> selected = new HashSet<>();
    private long selection;

    private LeaseTerms(Flux<LeadershipEvent> election, ToIntFunction<Request> shardOf, int shards,
                       ShardSelector.Key cacheKey) {
        this.election = election;
        this.shardOf = shardOf;
        this.terms = new AtomicReferenceArray<>(shards);
        this.cacheKey = cacheKey;
    }

    /**
     * The terms of {@code leader}'s or {@code shards}' election (one of them may be given), or null with neither;
     * with {@code cacheKey}, {@code shards} are ranges of that key's hash, which {@code primary} caches.
     */
    static LeaseTerms of(LeaderElector leader, ShardElector shards, ShardSelector.Key cacheKey,
                         SharedIndexInformer<?> primary) {
        if (leader != null) {
            return new LeaseTerms(leader.run(), request -> 0, 1, null);
        }
        if (shards == null) {
            return null;
        }
        if (cacheKey == null) {
            return new LeaseTerms(shards.run(), request -> shards.shardOf(request.key()), shards.shards(), null);
        }
        int count = shards.shards();
        return new LeaseTerms(shards.run(), request -> cachedShardOf(request, cacheKey, count, primary), count, cacheKey);
    }

    /**
     * The range of {@code count} holding the request's hash: its namespace's, or the uid's of its object in
     * the cache; -1 (no shard) when that object is not cached here, being another replica's (or deleted).
     */
    private static int cachedShardOf(Request request, ShardSelector.Key key, int count, SharedIndexInformer<?> primary) {
        if (key == ShardSelector.Key.NAMESPACE) {
            return ShardRange.indexOf(ShardSelector.hash(request.namespace() == null ? "" : request.namespace()), count);
        }
        KubernetesObject object = primary.indexer().getByKey(request.key()).orElse(null);
        String uid = object == null || object.getMetadata() == null ? null : object.getMetadata().getUid();
        return uid == null ? -1 : ShardRange.indexOf(ShardSelector.hash(uid), count);
    }

    /**
     * Runs the election, keeping the terms it begins and ends and queueing the cached objects of
     * {@code primary} for each Lease acquired; disposing the handle stops the election.
     */
    Disposable run(SharedIndexInformer<?> primary, WorkQueue<Request> queue, String controller) {
        return election.subscribe(event -> update(event, primary, queue, controller),
                e -> log.error("{}: the election failed; nothing is reconciled any more", controller, e));
    }

    /** Before the primary informer starts: with shards of its cache, it holds none until one is acquired. */
    void prepare(SharedIndexInformer<?> primary) {
        if (cacheKey != null) {
            primary.selectShards(ShardSelector.none());
        }
    }

    /** The term of {@code request}'s shard, or null while this replica does not hold it. */
    LeaseTerm termOf(Request request) {
        int shard = shardOf.applyAsInt(request);
        return shard < 0 ? null : terms.get(shard);
    }

    private void update(LeadershipEvent event, SharedIndexInformer<?> primary, WorkQueue<Request> queue,
                        String controller) {
        if (event instanceof LeadershipEvent.Acquired acquired) {
            LeaseTerm term = acquired.term();
            if (cacheKey == null) {
                begin(term, primary, queue, controller);
                return;
            }
            ShardSelector selector;
            long number;
            synchronized (this) {
                number = ++selection;
                awaitingRelist.put(term.shard(), new Awaiting(term, number));
                selected.add(term.shard());
                selector = ShardSelector.shards(cacheKey, selected, terms.length());
            }
            log.debug("{}: acquired {}; relisting with {}", controller, term.leaseName(), selector);
            // a stopped controller's queue ignores what a late relist would queue
            primary.selectShards(selector).subscribe(null, null, () -> relisted(number, primary, queue, controller));
        } else if (event instanceof LeadershipEvent.Lost lost) {
            LeaseTerm term = lost.term();
            terms.compareAndSet(term.shard(), term, null);
            log.debug("{}: lost {}", controller, term.leaseName());
            if (cacheKey != null) {
                ShardSelector selector;
                synchronized (this) {
                    selection++;
                    Awaiting awaiting = awaitingRelist.get(term.shard());
                    if (awaiting != null && awaiting.term() == term) {
                        awaitingRelist.remove(term.shard());
                    }
                    selected.remove(term.shard());
                    selector = ShardSelector.shards(cacheKey, selected, terms.length());
                }
                // its objects leave the cache with the relist; nothing waits for it
                primary.selectShards(selector);
            }
        }
    }

    /**
     * The informer applied selection {@code number} (or a later one): it holds the objects of every shard asked
     * for up to it, since a shard leaves the selection only when lost, which ends its wait too.
     */
    private void relisted(long number, SharedIndexInformer<?> primary, WorkQueue<Request> queue, String controller) {
        List<LeaseTerm> ready = new ArrayList<>();
        synchronized (this) {
            awaitingRelist.values().removeIf(awaiting -> {
                boolean covered = awaiting.selection() <= number;
                if (covered) {
                    ready.add(awaiting.term());
                }
                return covered;
            });
        }
        ready.forEach(term -> begin(term, primary, queue, controller));
    }

    private void begin(LeaseTerm term, SharedIndexInformer<?> primary, WorkQueue<Request> queue, String controller) {
        terms.set(term.shard(), term);
        if (!term.isHeld()) {
            // it ended while its relist was applied (a Lost racing with this): not left behind as held
            terms.compareAndSet(term.shard(), term, null);
            return;
        }
        int queued = 0;
        for (String key : primary.indexer().listKeys()) {
            Request request = Request.parse(key);
            if (shardOf.applyAsInt(request) == term.shard()) {
                queue.add(request, Priority.LOW);
                queued++;
            }
        }
        log.debug("{}: began {}, queued its {} cached objects", controller, term.leaseName(), queued);
    }
}
