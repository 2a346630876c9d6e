package io.reactiveinformer.watch;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.ResourceClient;
import java.util.Objects;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@link ListerWatcher#of(ResourceClient)}. */
final class ClientListerWatcher<T extends KubernetesObject> implements ListerWatcher<T> {

    private final ResourceClient<T> client;

    ClientListerWatcher(ResourceClient<T> client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    @Override
    public Mono<ObjectList<T>> list(ListOptions options) {
        return client.list(options);
    }

    @Override
    public Mono<ObjectList<T>> list(ListOptions options, UnaryOperator<T> intern) {
        return client.list(options, intern);
    }

    @Override
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        return client.watch(options);
    }

    @Override
    public String toString() {
        return client.toString();
    }
}
