package io.reactiveinformer.leaderelection;

import io.kubernetes.client.openapi.models.V1Lease;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The Lease operations an election needs, in one namespace. {@link ClientLeaseStore} sends them to the API
 * server; tests use an in-memory one so that every election runs in virtual time.
 *
 * <p>{@link #create} and {@link #replace} fail with a {@code KubernetesApiException.Conflict} when the Lease
 * exists already, or was written since the {@code resourceVersion} the update carries.
 */
interface LeaseStore {

    /** The Lease, or empty when there is none. */
    Mono<V1Lease> get(String name);

    /** The Leases carrying the label selector. */
    Flux<V1Lease> list(String labelSelector);

    Mono<V1Lease> create(V1Lease lease);

    Mono<V1Lease> replace(V1Lease lease);

    /** Deletes the Lease; completes also when there is none. */
    Mono<Void> delete(String name);
}
