package io.reactiveinformer.e2e.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A {@link ListerWatcher} whose watches a test can cut and hold back, to disconnect an informer from a
 * real server at a chosen moment: {@link #disconnect()} ends the open watches (as a server closing them
 * would) and makes new ones wait until {@link #reconnect()}. Records the errors its watches ended with.
 */
final class GatedListerWatcher<T extends KubernetesObject> implements ListerWatcher<T> {

    private final ListerWatcher<T> delegate;
    private final AtomicReference<Sinks.Empty<Void>> gate = new AtomicReference<>(open());
    private final Sinks.Many<Boolean> cuts = Sinks.many().multicast().directBestEffort();
    private final AtomicInteger waiting = new AtomicInteger();
    private final List<Throwable> watchErrors = new CopyOnWriteArrayList<>();

    GatedListerWatcher(ListerWatcher<T> delegate) {
        this.delegate = delegate;
    }

    private static Sinks.Empty<Void> open() {
        Sinks.Empty<Void> opened = Sinks.empty();
        opened.tryEmitEmpty();
        return opened;
    }

    @Override
    public Mono<ObjectList<T>> list(ListOptions options) {
        return delegate.list(options);
    }

    @Override
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        return Flux.defer(() -> {
            waiting.incrementAndGet();
            return gate.get().asMono()
                    .doFinally(signal -> waiting.decrementAndGet())
                    .thenMany(Flux.defer(() -> delegate.watch(options)))
                    .doOnError(watchErrors::add)
                    .takeUntilOther(cuts.asFlux());
        });
    }

    /** Ends every open watch and holds new ones back. */
    void disconnect() {
        gate.set(Sinks.empty());
        cuts.tryEmitNext(Boolean.TRUE);
    }

    /** Lets held-back and new watches through. */
    void reconnect() {
        gate.get().tryEmitEmpty();
    }

    /** How many watches are held back now. */
    int waiting() {
        return waiting.get();
    }

    /** The errors watches ended with, in order. */
    List<Throwable> watchErrors() {
        return List.copyOf(watchErrors);
    }
}
