package io.reactiveinformer.leaderelection;

import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.KubernetesApiException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Leases in memory, with the API server's optimistic concurrency: one resourceVersion counter, creates of an
 * existing name and updates with a stale resourceVersion fail with a Conflict. Each candidate talks to it
 * through its own {@link #client() client}, which a test can cut off ({@link Client#down}) to make its
 * requests fail. Answers synchronously, so elections on it run entirely in virtual time.
 */
public final class InMemoryLeases {

    private final Map<String, V1Lease> leases = new TreeMap<>();
    private long resourceVersion;
    private int writes;

    public Client client() {
        return new Client();
    }

    synchronized V1Lease get(String name) {
        V1Lease lease = leases.get(name);
        return lease == null ? null : copy(lease);
    }

    synchronized String holder(String name) {
        return LeaseLock.holderOf(leases.get(name));
    }

    synchronized int writes() {
        return writes;
    }

    /** Writes the Lease as someone outside the test's candidates would (no precondition). */
    synchronized V1Lease put(V1Lease lease) {
        return store(copy(lease));
    }

    private V1Lease store(V1Lease lease) {
        writes++;
        lease.getMetadata().setResourceVersion(Long.toString(++resourceVersion));
        leases.put(lease.getMetadata().getName(), lease);
        return copy(lease);
    }

    static V1Lease copy(V1Lease lease) {
        V1ObjectMeta m = lease.getMetadata();
        V1LeaseSpec s = lease.getSpec() == null ? new V1LeaseSpec() : lease.getSpec();
        return new V1Lease().apiVersion(lease.getApiVersion()).kind(lease.getKind())
                .metadata(new V1ObjectMeta().name(m.getName()).namespace(m.getNamespace())
                        .labels(m.getLabels() == null ? null : Map.copyOf(m.getLabels()))
                        .resourceVersion(m.getResourceVersion()))
                .spec(new V1LeaseSpec().holderIdentity(s.getHolderIdentity()).leaseDurationSeconds(s.getLeaseDurationSeconds())
                        .acquireTime(s.getAcquireTime()).renewTime(s.getRenewTime()).leaseTransitions(s.getLeaseTransitions()));
    }

    private static KubernetesApiException conflict(String what) {
        return KubernetesApiException.of(what, 409, null, null);
    }

    /** One candidate's connection. */
    public final class Client implements LeaseStore {

        /** While true, every request fails with a 503 (the candidate is cut off from the API server). */
        public volatile boolean down;

        private <T> Mono<T> call(String what, java.util.function.Supplier<T> operation) {
            return Mono.defer(() -> {
                if (down) {
                    return Mono.error(KubernetesApiException.of(what, 503, null, null));
                }
                synchronized (InMemoryLeases.this) {
                    return Mono.justOrEmpty(operation.get());
                }
            });
        }

        @Override
        public Mono<V1Lease> get(String name) {
            return call("GET " + name, () -> InMemoryLeases.this.get(name));
        }

        @Override
        public Flux<V1Lease> list(String labelSelector) {
            String[] selector = labelSelector.split("=", 2);
            return call("LIST " + labelSelector, () -> {
                List<V1Lease> matching = new ArrayList<>();
                for (V1Lease lease : leases.values()) {
                    Map<String, String> labels = lease.getMetadata().getLabels();
                    if (labels != null && selector[1].equals(labels.get(selector[0]))) {
                        matching.add(copy(lease));
                    }
                }
                return matching;
            }).flatMapIterable(list -> list);
        }

        @Override
        public Mono<V1Lease> create(V1Lease lease) {
            return call("POST " + lease.getMetadata().getName(), () -> {
                if (leases.containsKey(lease.getMetadata().getName())) {
                    throw conflict("POST " + lease.getMetadata().getName());
                }
                return store(copy(lease));
            });
        }

        @Override
        public Mono<V1Lease> replace(V1Lease lease) {
            String name = lease.getMetadata().getName();
            return call("PUT " + name, () -> {
                V1Lease current = leases.get(name);
                if (current == null) {
                    throw KubernetesApiException.of("PUT " + name, 404, null, null);
                }
                if (!current.getMetadata().getResourceVersion().equals(lease.getMetadata().getResourceVersion())) {
                    throw conflict("PUT " + name);
                }
                return store(copy(lease));
            });
        }

        @Override
        public Mono<Void> delete(String name) {
            return call("DELETE " + name, () -> {
                if (leases.remove(name) != null) {
                    writes++;
                }
                return null;
            }).then();
        }
    }
}
