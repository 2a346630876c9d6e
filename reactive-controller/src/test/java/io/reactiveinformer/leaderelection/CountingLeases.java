package io.reactiveinformer.leaderelection;

import io.kubernetes.client.openapi.models.V1Lease;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A {@link LeaseStore} that records when (by {@code clock}) each request was sent, and can make requests of
 * one kind fail. After {@code limit} requests it stops answering (every request then never completes): a
 * campaign that retries without a floor would otherwise loop forever inside a virtual-time advance, and the
 * test could not report how many tries it made.
 */
final class CountingLeases implements LeaseStore {

    /** One request: its kind ({@code GET}, {@code LIST}, {@code POST}, {@code PUT}, {@code DELETE}) and time. */
    record Call(String kind, long atMillis) {
    }

    private final LeaseStore delegate;
    private final Scheduler clock;
    private final int limit;
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    /** When set, writes (POST, PUT) fail with what it returns for the request. */
    volatile Function<String, Throwable> failWrites;
    /** When set, every request fails with what it returns for the request. */
    volatile Function<String, Throwable> failAll;

    CountingLeases(LeaseStore delegate, Scheduler clock, int limit) {
        this.delegate = delegate;
        this.clock = clock;
        this.limit = limit;
    }

    List<Call> calls() {
        return List.copyOf(calls);
    }

    /** The times of the requests of one kind. */
    List<Long> times(String kind) {
        return calls.stream().filter(c -> c.kind().equals(kind)).map(Call::atMillis).toList();
    }

    private <T> Mono<T> call(String kind, boolean write, Mono<T> operation) {
        return Mono.defer(() -> {
            if (calls.size() >= limit) {
                return Mono.never();
            }
            calls.add(new Call(kind, clock.now(TimeUnit.MILLISECONDS)));
            Function<String, Throwable> all = failAll;
            Function<String, Throwable> writes = failWrites;
            if (all != null) {
                return Mono.error(all.apply(kind));
            }
            if (write && writes != null) {
                return Mono.error(writes.apply(kind));
            }
            return operation;
        });
    }

    @Override
    public Mono<V1Lease> get(String name) {
        return call("GET", false, delegate.get(name));
    }

    @Override
    public Flux<V1Lease> list(String labelSelector) {
        return call("LIST", false, delegate.list(labelSelector).collectList()).flatMapIterable(l -> l);
    }

    @Override
    public Mono<V1Lease> create(V1Lease lease) {
        return call("POST", true, delegate.create(lease));
    }

    @Override
    public Mono<V1Lease> replace(V1Lease lease) {
        return call("PUT", true, delegate.replace(lease));
    }

    @Override
    public Mono<Void> delete(String name) {
        return call("DELETE", true, delegate.delete(name));
    }
}
