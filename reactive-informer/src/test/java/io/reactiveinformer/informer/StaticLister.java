package io.reactiveinformer.informer;

import io.reactiveinformer.client.ListOptions;
import io.reactiveinformer.client.ObjectList;
import io.reactiveinformer.client.WatchEvent;
import io.reactiveinformer.client.WatchOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Lists fixed objects at resourceVersion 7 and watches forever without events. */
record StaticLister<T>(List<T> items) implements ListerWatcher<T> {

    @Override
    public Mono<ObjectList<T>> list(ListOptions options) {
        return Mono.just(new ObjectList<>(items, "7", null, null));
    }

    @Override
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        return Flux.never();
    }
}
