package io.reactiveinformer.spring;

import java.util.List;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/informers}: every informer's health, cache size and resourceVersion. Expose it with
 * {@code management.endpoints.web.exposure.include=health,informers}; the bean exists only where the endpoint is
 * available (enabled and exposed), as Boot's own endpoints do.
 */
@Endpoint(id = "informers")
public class InformersEndpoint {

    private final InformerRegistry registry;

    public InformersEndpoint(InformerRegistry registry) {
        this.registry = registry;
    }

    @ReadOperation
    public List<InformerView> informers() {
        return registry.informers().stream().map(i -> InformerView.of(i, i.health())).toList();
    }
}
