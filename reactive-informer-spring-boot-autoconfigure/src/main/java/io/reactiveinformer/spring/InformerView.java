package io.reactiveinformer.spring;

import io.reactiveinformer.informer.InformerHealth;
import io.reactiveinformer.informer.SharedIndexInformer;

/**
 * What the health indicator and {@code /actuator/informers} show of one informer: its health snapshot
 * in JSON-friendly form, the number of cached objects and the resourceVersion it has caught up to.
 *
 * @param lastSyncAge seconds since the cache last caught up with the server; {@code null} before the first list
 * @param lastError   the latest list or watch failure's message; {@code null} while there was none
 */
public record InformerView(String name, boolean healthy, boolean started, boolean synced, boolean stopped,
                           Double lastSyncAge, int consecutiveFailures, String lastError, boolean forbidden,
                           long userCodeErrors, int cached, String resourceVersion) {

    static InformerView of(SharedIndexInformer<?> informer, InformerHealth h) {
        return new InformerView(h.name(), h.healthy(), h.started(), h.synced(), h.stopped(),
                h.lastSyncAge() == null ? null : h.lastSyncAge().toMillis() / 1000.0, h.consecutiveFailures(),
                h.lastError() == null ? null : h.lastError().getMessage(), h.forbidden(), h.userCodeErrors(),
                informer.indexer().size(), informer.lastSyncResourceVersion());
    }
}
