package io.reactiveinformer.controller;

import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.leaderelection.LeaseTerm;
import io.reactiveinformer.leaderelection.LeadershipEvent;
import io.reactiveinformer.leaderelection.ShardElector;
import io.reactiveinformer.workqueue.Priority;
import io.reactiveinformer.workqueue.WorkQueue;
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
 * <p>The events arrive on the elector's threads; {@link #termOf} is read by the queue's workers, hence
 * the atomic array.
 */
final class LeaseTerms {

    /** The controller's logger: these lines are the controller's. */
    private static final Logger log = LoggerFactory.getLogger(Controller.class);

    private final Flux<LeadershipEvent> election;
    private final ToIntFunction<Request> shardOf;
    private final AtomicReferenceArray<LeaseTerm> terms;

    private LeaseTerms(Flux<LeadershipEvent> election, ToIntFunction<Request> shardOf, int shards) {
        this.election = election;
        this.shardOf = shardOf;
        this.terms = new AtomicReferenceArray<>(shards);
    }

    /** The terms of {@code leader}'s or {@code shards}' election (one of them may be given), or null with neither. */
    static LeaseTerms of(LeaderElector leader, ShardElector shards) {
        if (leader != null) {
            return new LeaseTerms(leader.run(), request -> 0, 1);
        }
        if (shards != null) {
            return new LeaseTerms(shards.run(), request -> shards.shardOf(request.key()), shards.shards());
        }
        return null;
    }

    /**
     * Runs the election, keeping the terms it begins and ends and queueing the cached objects of
     * {@code primary} for each Lease acquired; disposing the handle stops the election.
     */
    Disposable run(SharedIndexInformer<?> primary, WorkQueue<Request> queue, String controller) {
        return election.subscribe(event -> update(event, primary, queue, controller),
                e -> log.error("{}: the election failed; nothing is reconciled any more", controller, e));
    }

    /** The term of {@code request}'s shard, or null while this replica does not hold it. */
    LeaseTerm termOf(Request request) {
        return terms.get(shardOf.applyAsInt(request));
    }

    private void update(LeadershipEvent event, SharedIndexInformer<?> primary, WorkQueue<Request> queue,
                        String controller) {
        if (event instanceof LeadershipEvent.Acquired acquired) {
            LeaseTerm term = acquired.term();
            terms.set(term.shard(), term);
            int queued = 0;
            for (String key : primary.indexer().listKeys()) {
                Request request = Request.parse(key);
                if (shardOf.applyAsInt(request) == term.shard()) {
                    queue.add(request, Priority.LOW);
                    queued++;
                }
            }
            log.debug("{}: acquired {}, queued its {} cached objects", controller, term.leaseName(), queued);
        } else if (event instanceof LeadershipEvent.Lost lost) {
            terms.compareAndSet(lost.term().shard(), lost.term(), null);
            log.debug("{}: lost {}", controller, lost.term().leaseName());
        }
    }
}
