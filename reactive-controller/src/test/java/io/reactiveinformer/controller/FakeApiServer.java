package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.util.ArrayDeque;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * An in-memory API server for one kind (after the informer tests' fake pod server): LIST answers the
 * current state, WATCH replays the history after the requested resourceVersion, then follows live
 * changes; a streaming list (a WATCH with {@code sendInitialEvents}) answers the current state as
 * {@code ADDED} events, then the {@code k8s.io/initial-events-end} bookmark, then the live changes, as
 * kube-apiserver 1.32+. Lists, LISTs or streaming lists, can be scripted to fail. A shard selector is applied (and echoed) as kube-apiserver does
 * with {@code ShardedListAndWatch} on; objects without a uid get a UUID made from their key.
 */
final class FakeApiServer<T extends KubernetesObject> implements ListerWatcher<T> {

    private final Function<V1ObjectMeta, T> withMetadata;
    private final Map<String, T> state = new LinkedHashMap<>();
    private final Sinks.Many<WatchEvent<T>> history = Sinks.many().replay().all();
    private final Deque<KubernetesClientException> listFailures = new ArrayDeque<>();
    private long resourceVersion = 1;

    /** @param withMetadata an object of the kind with only this metadata, for the bookmarks */
    FakeApiServer(Function<V1ObjectMeta, T> withMetadata) {
        this.withMetadata = withMetadata;
    }

    /** Creates or replaces the object (a fresh instance: the informer caches it); watches see it. */
    synchronized T put(T object) {
        object.getMetadata().setResourceVersion(Long.toString(++resourceVersion));
        if (object.getMetadata().getUid() == null) {
            // a UUID, as the server's, whose hashes spread (FNV-1a of names differing in their last digits do not)
            object.getMetadata().setUid(UUID.nameUUIDFromBytes(Request.of(object).key().getBytes(StandardCharsets.UTF_8))
                    .toString());
        }
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
                failIfDue();
                ShardSelector shards = options.shardSelector();
                return new ObjectList<>(state.values().stream().filter(o -> shards == null || shards.matches(o)).toList(),
                        Long.toString(resourceVersion), null, null, shards == null ? null : shards.toString());
            }
        });
    }

    private void failIfDue() {
        KubernetesClientException failure = listFailures.poll();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        return Flux.defer(() -> {
            List<WatchEvent<T>> initial = new ArrayList<>();
            long from;
            // The state and the version it is at are read together, so the history after it is exactly what follows.
            synchronized (this) {
                if (options.sendInitialEvents()) {
                    failIfDue();
                    state.values().forEach(o -> initial.add(new WatchEvent<>(WatchEvent.Type.ADDED, o)));
                    initial.add(new WatchEvent<>(WatchEvent.Type.BOOKMARK, withMetadata.apply(new V1ObjectMeta()
                            .resourceVersion(Long.toString(resourceVersion))
                            .annotations(Map.of("k8s.io/initial-events-end", "true")))));
                    from = resourceVersion;
                } else {
                    from = options.resourceVersion() == null || options.resourceVersion().isEmpty()
                            ? 0 : Long.parseLong(options.resourceVersion());
                }
            }
            long after = from;
            return Flux.fromIterable(initial).concatWith(history.asFlux()
                    .filter(e -> Long.parseLong(e.object().getMetadata().getResourceVersion()) > after))
                    .filter(e -> e.type() == WatchEvent.Type.BOOKMARK || options.shardSelector() == null
                            || options.shardSelector().matches(e.object()));
        });
    }
}
