package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * An in-memory API server for one kind (after the informer tests' fake pod server): LIST answers the
 * current state, WATCH replays the history after the requested resourceVersion, then follows live
 * changes. Lists can be scripted to fail.
 */
final class FakeApiServer<T extends KubernetesObject> implements ListerWatcher<T> {

    private final Map<String, T> state = new LinkedHashMap<>();
    private final Sinks.Many<WatchEvent<T>> history = Sinks.many().replay().all();
    private final Deque<KubernetesClientException> listFailures = new ArrayDeque<>();
    private long resourceVersion = 1;

    /** Creates or replaces the object (a fresh instance: the informer caches it); watches see it. */
    synchronized T put(T object) {
        object.getMetadata().setResourceVersion(Long.toString(++resourceVersion));
        T old = state.put(Request.of(object).key(), object);
        history.tryEmitNext(new WatchEvent<>(old == null ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED, object));
        return object;
    }

    /** Deletes the object named by {@code lastState} (a fresh instance), which watches see as its final state. */
    synchronized void delete(T lastState) {
        if (state.remove(Request.of(lastState).key()) != null) {
            lastState.getMetadata().setResourceVersion(Long.toString(++resourceVersion));
            history.tryEmitNext(new WatchEvent<>(WatchEvent.Type.DELETED, lastState));
        }
    }

    synchronized void failNextLists(int times, KubernetesClientException error) {
        for (int i = 0; i < times; i++) {
            listFailures.add(error);
        }
    }

    @Override
    public Mono<ObjectList<T>> list(ListOptions options) {
        return Mono.fromCallable(() -> {
            synchronized (this) {
                KubernetesClientException failure = listFailures.poll();
                if (failure != null) {
                    throw failure;
                }
                return new ObjectList<>(new ArrayList<>(state.values()), Long.toString(resourceVersion), null, null);
            }
        });
    }

    @Override
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        return Flux.defer(() -> {
            long from = options.resourceVersion() == null || options.resourceVersion().isEmpty()
                    ? 0 : Long.parseLong(options.resourceVersion());
            return history.asFlux()
                    .filter(e -> Long.parseLong(e.object().getMetadata().getResourceVersion()) > from);
        });
    }
}
