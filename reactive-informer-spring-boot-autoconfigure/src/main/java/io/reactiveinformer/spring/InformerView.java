package io.reactiveinformer.spring;

import io.reactiveinformer.informer.HandlerRegistration;
import io.reactiveinformer.informer.InformerHealth;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.util.List;

/**
 * What the health indicator and {@code /actuator/informers} show of one informer: its health snapshot
 * in JSON-friendly form, the number of cached objects, the resourceVersion it has caught up to, and its
 * handlers with how far each is behind.
 *
 * @param lastSyncAge seconds since the cache last caught up with the server; {@code null} before the first list
 * @param lastError   the latest list or watch failure's message; {@code null} while there was none
 * @param stopCause   why the informer stopped itself; {@code null} while it runs or after a stop by its owner
 * @param handlers    handlers receiving notifications or about to
 * @param subscribers the handlers receiving notifications now, each with its buffer and lag
 */
public record InformerView(String name, boolean healthy, boolean started, boolean synced, boolean stopped,
                           Double lastSyncAge, int consecutiveFailures, String lastError, boolean forbidden,
                           long userCodeErrors, int cached, String resourceVersion, String stopCause, int handlers,
                           List<SubscriberView> subscribers) {

    /**
     * One handler: its pending notifications now and at most so far, and how long its oldest pending
     * notification has waited (seconds).
     */
    public record SubscriberView(String name, int bufferDepth, int maxBufferDepth, double lagSeconds) {

        static SubscriberView of(HandlerRegistration<?> handler) {
            return new SubscriberView(handler.name(), handler.bufferDepth(), handler.maxBufferDepth(),
                    handler.lag().toNanos() / 1e9);
        }
    }

    static InformerView of(SharedIndexInformer<?> informer, InformerHealth h) {
        return new InformerView(h.name(), h.healthy(), h.started(), h.synced(), h.stopped(),
                h.lastSyncAge() == null ? null : h.lastSyncAge().toMillis() / 1000.0, h.consecutiveFailures(),
                h.lastError() == null ? null : h.lastError().getMessage(), h.forbidden(), h.userCodeErrors(),
                informer.indexer().size(), informer.lastSyncResourceVersion(),
                h.stopCause() == null ? null : h.stopCause().toString(), informer.handlerCount(),
                informer.handlers().stream().map(SubscriberView::of).toList());
    }
}
