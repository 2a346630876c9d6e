package io.reactiveinformer.spring;

import io.reactiveinformer.informer.InformerHealth;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Readiness from the informers' {@link InformerHealth}: {@code UP} when every informer is
 * {@linkplain InformerHealth#healthy() healthy}; {@code OUT_OF_SERVICE} while one is still syncing;
 * {@code DOWN} when one stopped or was denied access (its cache is stale). Each informer's details:
 * synced, last sync age, consecutive failures, last error. A member of the readiness group too, unless the
 * application excludes it there. Off with
 * {@code management.health.informers.enabled=false}.
 *
 * <p>Reads lock-free snapshots; cheap enough for every probe.
 */
public final class InformersHealthIndicator implements HealthIndicator {

    private final InformerRegistry registry;

    public InformersHealthIndicator(InformerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Health health() {
        Status status = Status.UP;
        Map<String, Object> details = new LinkedHashMap<>();
        for (SharedIndexInformer<?> informer : registry.informers()) {
            InformerHealth h = informer.health();
            if (h.stopped() || h.forbidden()) {
                status = Status.DOWN;
            } else if (!h.healthy() && status == Status.UP) {
                status = Status.OUT_OF_SERVICE;
            }
            details.put(h.name(), InformerView.of(informer, h));
        }
        return Health.status(status).withDetails(details).build();
    }
}
