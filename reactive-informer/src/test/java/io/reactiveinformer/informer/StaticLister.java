package io.reactiveinformer.informer;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Lists fixed objects at resourceVersion 7, by LIST or by a streaming list, and watches forever without events.
 *
 * @param endOfInitialEvents the bookmark ending a streaming list's initial events, at resourceVersion 7
 */
record StaticLister<T>(List<T> items, T endOfInitialEvents) implements ListerWatcher<T> {

    private static final V1ObjectMeta END_OF_INITIAL_EVENTS = new V1ObjectMeta().resourceVersion("7")
            .annotations(Map.of("k8s.io/initial-events-end", "true"));

    static StaticLister<V1Pod> pods(V1Pod... items) {
        return new StaticLister<>(List.of(items), new V1Pod().metadata(END_OF_INITIAL_EVENTS));
    }

    static StaticLister<PartialObjectMetadata> metadata(PartialObjectMetadata... items) {
        return new StaticLister<>(List.of(items), new PartialObjectMetadata(END_OF_INITIAL_EVENTS));
    }

    @Override
    public Mono<ObjectList<T>> list(ListOptions options) {
        return Mono.just(new ObjectList<>(items, "7", null, null));
    }

    @Override
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        if (!options.sendInitialEvents()) {
            return Flux.never();
        }
        return Flux.fromIterable(items).map(item -> new WatchEvent<>(WatchEvent.Type.ADDED, item))
                .concatWith(Mono.just(new WatchEvent<>(WatchEvent.Type.BOOKMARK, endOfInitialEvents)))
                .concatWith(Flux.never());
    }
}
