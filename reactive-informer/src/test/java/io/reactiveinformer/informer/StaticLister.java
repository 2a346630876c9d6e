package io.reactiveinformer.informer;

import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
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
