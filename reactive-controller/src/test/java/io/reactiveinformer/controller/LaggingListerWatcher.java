package io.reactiveinformer.controller;

import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Hands every watch event to the informer {@code lag} after the server sent it, in order: an informer whose
 * cache trails the writes, as one does behind a busy API server or network.
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
        return server.watch(options).flatMapSequential(event -> Mono.delay(lag, scheduler).thenReturn(event));
    }
}
