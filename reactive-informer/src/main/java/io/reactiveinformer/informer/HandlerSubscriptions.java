package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.cache.Indexer;
import reactor.core.CoreSubscriber;
import reactor.core.scheduler.Scheduler;

/**
 * Turns the subscription to a {@link HandlerRegistration}'s notifications into a handler of one informer:
 * gives it its {@link SubscriberBuffer} (drained on the delivery scheduler, or on the blocking one for a
 * {@link SubscriberOptions#blocking() blocking} handler), joins it to the {@link SharedProcessor} at the
 * seam (the cache as initial adds, then every change), registers its buffer depth with the metrics, and
 * undoes all that when the subscription ends.
 *
 * <p><b>Threading.</b> {@link #activate} runs on the subscribing thread; the join waits for the entry the
 * apply loop is applying, if any. The buffer's owner callbacks run on the buffer's drain task.
 */
final class HandlerSubscriptions<T extends KubernetesObject> {

    private final String informer;
    private final Scheduler deliveryScheduler;
    private final Scheduler blockingScheduler;
    private final SharedProcessor<T> processor;
    private final Indexer<T> indexer;
    private final InformerState state;
    private final ResyncSchedule<T> resync;
    private final UserCode userCode;
    private final InformerMetrics metrics;

    HandlerSubscriptions(String informer, Scheduler deliveryScheduler, Scheduler blockingScheduler,
                         SharedProcessor<T> processor, Indexer<T> indexer, InformerState state, ResyncSchedule<T> resync,
                         UserCode userCode, InformerMetrics metrics) {
        this.informer = informer;
        this.deliveryScheduler = deliveryScheduler;
        this.blockingScheduler = blockingScheduler;
        this.processor = processor;
        this.indexer = indexer;
        this.state = state;
        this.resync = resync;
        this.userCode = userCode;
        this.metrics = metrics;
    }

    /** Adds {@code handler}, whose notifications {@code actual} subscribed to. */
    void activate(HandlerRegistration<T> handler, CoreSubscriber<? super Notification<T>> actual) {
        SubscriberOptions options = handler.options();
        Runnable[] unobserve = new Runnable[1];
        SubscriberBuffer<T> buffer = new SubscriberBuffer<>(informer, handler.name(), PendingNotifications.of(options),
                options.blockingHandler() ? blockingScheduler : deliveryScheduler, options.syncMarker(),
                new SubscriberBuffer.Owner() {
                    @Override
                    public void synced() {
                        handler.markSynced();
                    }

                    @Override
                    public void terminated(Throwable error) {
                        processor.remove(handler);
                        if (unobserve[0] != null) {
                            unobserve[0].run();
                        }
                        handler.ended(error);
                    }

                    @Override
                    public void handlerFailed(Notification<?> notification, Throwable error) {
                        userCode.failed(UserCodeError.Stage.HANDLER, notification.key(), handler.name(), error);
                    }
                }, actual);
        handler.buffer = buffer;
        boolean joined = processor.add(handler, indexer::list, state::isSynced,
                () -> resync.join(handler, state.isStarted()));
        unobserve[0] = metrics.subscriberAdded(handler.name(), buffer::depth);
        actual.onSubscribe(buffer);
        if (!joined) {
            buffer.overflow(options.capacity());
        } else if (processor.isClosed()) {
            buffer.complete();
        }
        buffer.start();
    }
}
