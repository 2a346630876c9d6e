package io.reactiveinformer.spring;

import java.util.List;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.core.env.Environment;

/**
 * Makes the {@code informers} indicator a member of the {@code readiness} group (Boot's probe group, or one the
 * application configured): a replica whose caches have not synced yet, or went stale, is taken out of its
 * Service's endpoints, as it would serve from an incomplete cache. Left alone: an application that excludes it
 * ({@code management.endpoint.health.group.readiness.exclude=informers}), and one without a readiness group.
 *
 * <p>Runs after Boot's availability probes post-processor (the auto-configuration is ordered after it), which
 * creates the readiness group.
 */
final class InformersReadiness implements HealthEndpointGroupsPostProcessor {

    static final String INDICATOR = "informers";
    private static final String READINESS = "readiness";

    private final boolean excluded;

    InformersReadiness(Environment environment) {
        Set<String> exclude = Binder.get(environment)
                .bind("management.endpoint.health.group.readiness.exclude", Bindable.setOf(String.class))
                .orElse(Set.of());
        this.excluded = exclude.contains(INDICATOR) || exclude.contains("*");
    }

    @Override
    public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
        HealthEndpointGroup readiness = groups.get(READINESS);
        if (excluded || readiness == null || readiness.isMember(INDICATOR)) {
            return groups;
        }
        return new Groups(groups, new WithInformers(readiness));
    }

    /** The application's groups, with the readiness group replaced; still mapping the groups' additional paths. */
    private record Groups(HealthEndpointGroups delegate, HealthEndpointGroup readiness)
            implements HealthEndpointGroups, AdditionalPathsMapper {

        @Override
        public HealthEndpointGroup getPrimary() {
            return delegate.getPrimary();
        }

        @Override
        public Set<String> getNames() {
            return delegate.getNames();
        }

        @Override
        public HealthEndpointGroup get(String name) {
            return READINESS.equals(name) ? readiness : delegate.get(name);
        }

        @Override
        public List<String> getAdditionalPaths(EndpointId endpointId, WebServerNamespace webServerNamespace) {
            return delegate instanceof AdditionalPathsMapper mapper
                    ? mapper.getAdditionalPaths(endpointId, webServerNamespace) : null;
        }
    }

    private record WithInformers(HealthEndpointGroup delegate) implements HealthEndpointGroup {

        @Override
        public boolean isMember(String name) {
            return INDICATOR.equals(name) || delegate.isMember(name);
        }

        @Override
        public boolean showComponents(SecurityContext securityContext) {
            return delegate.showComponents(securityContext);
        }

        @Override
        public boolean showDetails(SecurityContext securityContext) {
            return delegate.showDetails(securityContext);
        }

        @Override
        public StatusAggregator getStatusAggregator() {
            return delegate.getStatusAggregator();
        }

        @Override
        public HttpCodeStatusMapper getHttpCodeStatusMapper() {
            return delegate.getHttpCodeStatusMapper();
        }

        @Override
        public AdditionalHealthEndpointPath getAdditionalPath() {
            return delegate.getAdditionalPath();
        }
    }
}
