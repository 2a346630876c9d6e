package io.reactiveinformer.informer;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.cache.ObjectKeys;
import io.reactiveinformer.watch.ListerWatcher;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * An in-memory API server for pods: a state with resourceVersions, LIST answering the current state, WATCH
 * replaying the history after the requested version and then following live changes, and a streaming list
 * (a WATCH with {@code sendInitialEvents}) answering the current state as {@code ADDED} events, then the
 * {@code k8s.io/initial-events-end} bookmark, then the live changes, as kube-apiserver 1.32+. Scriptable: list
 * failures, silent changes (missed by watches) and broken watches (410) that force a relist. A shard selector
 * is applied and echoed, as kube-apiserver does with {@code ShardedListAndWatch} on, unless
 * {@link #ignoresShardSelectors} (the gate off).
 */
final class FakePodServer implements ListerWatcher<V1Pod> {

    private final Scheduler clock;
    private final Map<String, V1Pod> state = new LinkedHashMap<>();
    private final Sinks.Many<WatchEvent<V1Pod>> history = Sinks.many().replay().all();
    private final Sinks.Many<KubernetesClientException> breaks = Sinks.many().multicast().directBestEffort();
    private final Deque<KubernetesClientException> listFailures = new ArrayDeque<>();
    private long resourceVersion = 1;

    /** Every list, a LIST or a streaming list (as the list it stands for), and when it came (clock time, ms). */
    final List<ListOptions> lists = new CopyOnWriteArrayList<>();
    final List<Long> listMillis = new CopyOnWriteArrayList<>();
    final List<WatchOptions> watches = new CopyOnWriteArrayList<>();
    final AtomicInteger openWatches = new AtomicInteger();
    volatile boolean ignoresShardSelectors;

    FakePodServer() {
        this(Schedulers.immediate());
    }

    FakePodServer(Scheduler clock) {
        this.clock = clock;
    }

    static KubernetesClientException forbidden() {
        return KubernetesApiException.of("GET /api/v1/pods", 403, null, null);
    }

    static V1Pod pod(String namespace, String name, String value, long resourceVersion) {
        return new V1Pod().metadata(new V1ObjectMeta().namespace(namespace).name(name)
                .resourceVersion(Long.toString(resourceVersion)).labels(Map.of("v", value)));
    }

    static String valueOf(V1Pod pod) {
        return pod.getMetadata().getLabels().get("v");
    }

    /** Creates or updates {@code namespace/name} with label {@code v=value}; watches see it. */
    synchronized V1Pod put(String namespace, String name, String value) {
        return put(namespace, name, value, false);
    }

    /** As {@link #put(String, String, String)}; when {@code silent}, watches miss it (a relist finds it). */
    synchronized V1Pod put(String namespace, String name, String value, boolean silent) {
        V1Pod pod = pod(namespace, name, value, ++resourceVersion);
        V1Pod old = state.put(ObjectKeys.keyOf(pod), pod);
        if (!silent) {
            history.tryEmitNext(new WatchEvent<>(old == null ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED, pod));
        }
        return pod;
    }

    synchronized void delete(String key) {
        delete(key, false);
    }

    synchronized void delete(String key, boolean silent) {
        V1Pod old = state.remove(key);
        if (old != null && !silent) {
            V1Pod last = pod(old.getMetadata().getNamespace(), old.getMetadata().getName(), valueOf(old), ++resourceVersion);
            history.tryEmitNext(new WatchEvent<>(WatchEvent.Type.DELETED, last));
        } else if (old != null) {
            ++resourceVersion;
        }
    }

    /** A bookmark at the current version. */
    synchronized void bookmark() {
        history.tryEmitNext(new WatchEvent<>(WatchEvent.Type.BOOKMARK,
                new V1Pod().metadata(new V1ObjectMeta().resourceVersion(Long.toString(resourceVersion)))));
    }

    /** Ends every open watch with 410 Gone, so the reflector relists. */
    void breakWatches() {
        breaks.tryEmitNext(KubernetesApiException.of("WATCH /api/v1/pods", 410, null, null));
    }

    /** The next lists, LISTs or streaming lists, fail with {@code error}. */
    synchronized void failNextLists(int times, KubernetesClientException error) {
        for (int i = 0; i < times; i++) {
            listFailures.add(error);
        }
    }

    synchronized Map<String, V1Pod> snapshot() {
        return new LinkedHashMap<>(state);
    }

    synchronized String currentResourceVersion() {
        return Long.toString(resourceVersion);
    }

    @Override
    public Mono<ObjectList<V1Pod>> list(ListOptions options) {
        return Mono.fromCallable(() -> {
            synchronized (this) {
                ShardSelector shards = listed(options);
                return new ObjectList<>(state.values().stream().filter(p -> shards == null || shards.matches(p)).toList(),
                        Long.toString(resourceVersion), null, null, shards == null ? null : shards.toString());
            }
        });
    }

    /** Records a list and fails it if a failure is due; answers the shard selector it is served with. */
    private ShardSelector listed(ListOptions options) {
        lists.add(options);
        listMillis.add(clock.now(TimeUnit.MILLISECONDS));
        KubernetesClientException failure = listFailures.poll();
        if (failure != null) {
            throw failure;
        }
        return ignoresShardSelectors ? null : options.shardSelector();
    }

    @Override
    public Flux<WatchEvent<V1Pod>> watch(WatchOptions options) {
        return Flux.defer(() -> {
            watches.add(options);
            List<WatchEvent<V1Pod>> initial = new ArrayList<>();
            long from;
            // The state and the version it is at are read together, so the history after it is exactly what follows.
            synchronized (this) {
                if (options.sendInitialEvents()) {
                    ShardSelector shards = listed(ListOptions.none()
                            .withSelectors(options.labelSelector(), options.fieldSelector())
                            .withResourceVersion(options.resourceVersion(), options.resourceVersionMatch())
                            .withShardSelector(options.shardSelector()));
                    state.values().stream().filter(p -> shards == null || shards.matches(p))
                            .forEach(p -> initial.add(new WatchEvent<>(WatchEvent.Type.ADDED, p)));
                    initial.add(new WatchEvent<>(WatchEvent.Type.BOOKMARK, new V1Pod().metadata(new V1ObjectMeta()
                            .resourceVersion(Long.toString(resourceVersion))
                            .annotations(Map.of("k8s.io/initial-events-end", "true")))));
                    from = resourceVersion;
                } else {
                    from = options.resourceVersion() == null || options.resourceVersion().isEmpty()
                            ? 0 : Long.parseLong(options.resourceVersion());
                }
            }
            long after = from;
            Flux<WatchEvent<V1Pod>> broken = breaks.asFlux().next().flatMapMany(Flux::error);
            return Flux.fromIterable(initial).concatWith(history.asFlux()
                    .filter(e -> Long.parseLong(e.object().getMetadata().getResourceVersion()) > after))
                    .filter(e -> e.type() == WatchEvent.Type.BOOKMARK || options.shardSelector() == null
                            || ignoresShardSelectors || options.shardSelector().matches(e.object()))
                    .mergeWith(broken)
                    .doOnSubscribe(s -> openWatches.incrementAndGet())
                    .doFinally(s -> openWatches.decrementAndGet());
        });
    }
}
