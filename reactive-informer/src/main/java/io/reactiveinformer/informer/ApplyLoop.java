package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.cache.Indexer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The FIFO → cache → handlers leg of one informer, the {@link DeltaFifo}'s consumer: applies each entry to
 * the cache and offers its notifications to the {@link SharedProcessor}'s handlers; the first initial list
 * marks the informer synced. Between entries the FIFO's drain loop admits joining handlers
 * ({@link SharedProcessor#admitJoiners}), which is what makes the seam between a handler's initial state
 * and its live changes exact.
 *
 * <p>An entry that fails to apply stops the informer with that cause (in {@code health().stopCause()}, and
 * {@code hasSynced()} fails if it had not synced): skipping it would leave the cache silently apart from the
 * server until the next relist, or, for the initial list, never synced. A delivery scheduler that rejects the
 * FIFO's drain loop stops it the same way.
 *
 * <p><b>Threading.</b> Runs on the FIFO's drain loop (the informer's delivery scheduler), one entry at a
 * time; it is the cache's single writer and the only thread that changes which handlers are told. It
 * takes no lock that a subscribing thread holds.
 */
final class ApplyLoop<T extends KubernetesObject> implements DeltaFifo.EntryConsumer<T> {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    private final String name;
    private final Indexer<T> indexer;
    private final DeltaApplier<T> applier;
    private final SharedProcessor<T> processor;
    private final ResyncSchedule<T> resync;
    private final InformerState state;
    private final AppliedSelection selection;
    private final Consumer<Throwable> stop;

    ApplyLoop(String name, Indexer<T> indexer, DeltaApplier<T> applier, SharedProcessor<T> processor,
              ResyncSchedule<T> resync, InformerState state, AppliedSelection selection, Consumer<Throwable> stop) {
        this.name = name;
        this.indexer = indexer;
        this.applier = applier;
        this.processor = processor;
        this.resync = resync;
        this.state = state;
        this.selection = selection;
        this.stop = stop;
    }

    @Override
    public void failed(Throwable cause) {
        log.error("{}: the apply loop failed; the informer stops (its cache no longer changes)", name, cause);
        stop.accept(cause);
    }

    @Override
    public void accept(FifoEntry<T> entry) {
        boolean becomesSynced = entry instanceof FifoEntry.Replace<T> replace && replace.initial() && !state.isSynced();
        processor.distribute(applier.apply(entry), resync.due());
        if (entry instanceof FifoEntry.Replace<T> replace) {
            selection.applied(replace.selection());
        }
        if (becomesSynced) {
            state.markSynced();
            processor.offerSynced();
            log.debug("{}: synced with {} objects", name, indexer.size());
            state.announceSynced();
        }
    }
}
