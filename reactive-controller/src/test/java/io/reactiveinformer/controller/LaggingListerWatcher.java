package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Hands every watch event to the informer {@code lag} after the server sent it, in order: an informer whose
 * cache trails the writes, as one does behind a busy API server or network. A streaming list's initial
 * events, up to the bookmark ending them, are its list, and are handed over at once as a LIST is.
 */
final class LaggingListerWatcher<T> implements ListerWatcher<T> {

    private final ListerWatcher<T> server;
    private final Duration lag;
    private final Scheduler scheduler;

    LaggingListerWatcher(ListerWatcher<T> server, Duration lag, Scheduler scheduler) {
        this.server = server;
        this.lag = lag;
        this.scheduler = scheduler;
    }

    @Override
    public Mono<ObjectList<T>> list(ListOptions options) {
        return server.list(options);
    }

    @Override
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        AtomicBoolean listing = new AtomicBoolean(options.sendInitialEvents());
        return server.watch(options).flatMapSequential(event -> {
            if (!listing.get()) {
                return Mono.delay(lag, scheduler).thenReturn(event);
            }
            listing.set(!endsInitialEvents(event));
            return Mono.just(event);
        });
    }

    private static boolean endsInitialEvents(WatchEvent<?> event) {
        return event.type() == WatchEvent.Type.BOOKMARK && event.object() instanceof KubernetesObject object
                && object.getMetadata().getAnnotations() != null
                && "true".equals(object.getMetadata().getAnnotations().get("k8s.io/initial-events-end"));
    }
}
