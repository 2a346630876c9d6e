package io.reactiveinformer.leaderelection;

import io.kubernetes.client.openapi.models.V1Lease;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.client.ResourceClient;
import java.util.Objects;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@link LeaseStore} on the API server, through the library's own client. */
final class ClientLeaseStore implements LeaseStore {

    private final ResourceClient<V1Lease> leases;

    ClientLeaseStore(ResourceClient<V1Lease> leases) {
        Objects.requireNonNull(leases, "leases");
        if (leases.namespace() == null) {
            throw new IllegalArgumentException("choose the Leases' namespace with inNamespace(...)");
        }
        this.leases = leases;
    }

    @Override
    public Mono<V1Lease> get(String name) {
        return leases.get(name).onErrorResume(KubernetesApiException.NotFound.class, e -> Mono.empty());
    }

    @Override
    public Flux<V1Lease> list(String labelSelector) {
        return leases.withLabelSelector(labelSelector).list(ListOptions.none())
                .flatMapIterable(ObjectList::items);
    }

    @Override
    public Mono<V1Lease> create(V1Lease lease) {
        return leases.create(lease);
    }

    @Override
    public Mono<V1Lease> replace(V1Lease lease) {
        return leases.replace(lease);
    }

    @Override
    public Mono<Void> delete(String name) {
        return leases.delete(name).onErrorResume(KubernetesApiException.NotFound.class, e -> Mono.empty());
    }

    @Override
    public String toString() {
        return leases.toString();
    }
}
