package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.cache.Indexer;
import java.util.function.Consumer;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.BaseSubscriber;

/**
 * The FIFO → cache → handlers leg of one informer: drains the {@link DeltaFifo} one entry at a time (so
 * that what is still queued keeps coalescing), applies each entry to the cache and offers its notifications
 * to the {@link SharedProcessor}'s handlers; the first initial list marks the informer synced. Between
 * entries the FIFO's drain loop admits joining handlers ({@link SharedProcessor#admitJoiners}), which is
 * what makes the seam between a handler's initial state and its live changes exact. An entry that fails
 * to apply is logged and skipped; a failure of the FIFO itself (including a delivery scheduler that
 * rejects its drain loop) stops the informer with that cause.
 *
 * <p><b>Threading.</b> Runs on the FIFO's drain loop (the informer's delivery scheduler), one entry at a
 * time; it is the cache's single writer and the only thread that changes which handlers are told. It
 * takes no lock that a subscribing thread holds.
 */
final class ApplyLoop<T extends KubernetesObject> extends BaseSubscriber<FifoEntry<T>> {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    private final String name;
    private final Indexer<T> indexer;
    private final DeltaApplier<T> applier;
    private final SharedProcessor<T> processor;
    private final ResyncSchedule<T> resync;
    private final InformerState state;
    private final Consumer<Throwable> stop;

    ApplyLoop(String name, Indexer<T> indexer, DeltaApplier<T> applier, SharedProcessor<T> processor,
              ResyncSchedule<T> resync, InformerState state, Consumer<Throwable> stop) {
        this.name = name;
        this.indexer = indexer;
        this.applier = applier;
        this.processor = processor;
        this.resync = resync;
        this.state = state;
        this.stop = stop;
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
        request(1);
    }

    @Override
    protected void hookOnNext(FifoEntry<T> entry) {
        try {
            apply(entry);
        } catch (RuntimeException e) {
            String what = entry instanceof FifoEntry.Deltas<T> d ? "the deltas of " + d.key() : "a relist";
            log.error("{}: failed to apply {}; skipping it", name, what, e);
        }
        request(1);
    }

    @Override
    protected void hookOnError(Throwable error) {
        log.error("{}: the apply loop failed; the informer stops (its cache no longer changes)", name, error);
        stop.accept(error);
    }

    private void apply(FifoEntry<T> entry) {
        boolean becomesSynced = entry instanceof FifoEntry.Replace<T> replace && replace.initial() && !state.isSynced();
        processor.distribute(applier.apply(entry), resync.due());
        if (becomesSynced) {
            state.markSynced();
            processor.offerSynced();
            log.debug("{}: synced with {} objects", name, indexer.size());
            state.announceSynced();
        }
    }
}
