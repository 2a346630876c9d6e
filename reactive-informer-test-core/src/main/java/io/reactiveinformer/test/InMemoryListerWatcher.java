package io.reactiveinformer.test;

import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.test.server.ApiError;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.EventType;
import io.reactiveinformer.test.server.ListResult;
import io.reactiveinformer.watch.ListerWatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * A {@link ListerWatcher} straight on a {@link ClusterState}, without HTTP: the same objects,
 * versions, history, compaction and selectors as the {@link io.reactiveinformer.test.server.SimulatedApiServer}
 * serving that state, and the same typed errors as the HTTP client (410 as
 * {@link KubernetesApiException.Gone}, ...). For virtual-time tests of the informer machinery:
 * give the state a {@code VirtualTimeScheduler} and watch timeouts and bookmarks follow it.
 *
 * <p>Both calls are cold. Lists complete on the subscribing thread; watch events are emitted on the
 * thread that changes the state (or that requests more), in history order, only as requested.
 * Every emitted object is a fresh copy.
 *
 * @param <T> the object type
 */
public final class InMemoryListerWatcher<T> implements ListerWatcher<T> {

    private final ClusterState state;
    private final ResourceType<T> type;
    private final String namespace;
    private final String labelSelector;
    private final String fieldSelector;

    private InMemoryListerWatcher(ClusterState state, ResourceType<T> type, String namespace, String labelSelector,
                                  String fieldSelector) {
        this.state = Objects.requireNonNull(state, "state");
        this.type = Objects.requireNonNull(type, "type");
        this.namespace = namespace;
        this.labelSelector = labelSelector;
        this.fieldSelector = fieldSelector;
        state.register(type);
    }

    /** All namespaces (or a cluster-scoped resource). */
    public static <T> InMemoryListerWatcher<T> of(ClusterState state, ResourceType<T> type) {
        return new InMemoryListerWatcher<>(state, type, null, null, null);
    }

    /** One namespace. */
    public static <T> InMemoryListerWatcher<T> of(ClusterState state, ResourceType<T> type, String namespace) {
        return new InMemoryListerWatcher<>(state, type, namespace, null, null);
    }

    /** Narrowed by selectors, combined with those of each call's options. */
    public InMemoryListerWatcher<T> withSelectors(String labelSelector, String fieldSelector) {
        return new InMemoryListerWatcher<>(state, type, namespace, labelSelector, fieldSelector);
    }

    @Override
    public Mono<ObjectList<T>> list(ListOptions options) {
        String request = "LIST " + this;
        return Mono.fromCallable(() -> {
            ListResult page = state.list(type, namespace, options.withSelectors(
                    and(labelSelector, options.labelSelector()), and(fieldSelector, options.fieldSelector())));
            List<T> items = new ArrayList<>(page.items().size());
            for (ObjectNode item : page.items()) {
                items.add(state.fromTree(state.asListItem(type, item), type.type()));
            }
            return new ObjectList<>(items, page.resourceVersion(), page.continueToken(), page.remainingItemCount(),
                    page.shardSelector());
        }).onErrorMap(ApiError.class, e -> typed(request, e));
    }

    @Override
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        String request = "WATCH " + this;
        WatchOptions narrowed = options.withSelectors(and(labelSelector, options.labelSelector()),
                and(fieldSelector, options.fieldSelector()));
        return Flux.defer(() -> state.watch(type, namespace, narrowed))
                .onErrorMap(ApiError.class, e -> typed(request, e))
                .handle((event, sink) -> {
                    if (event.type() == EventType.ERROR) {
                        V1Status status = state.fromTree(event.object(), V1Status.class);
                        int code = status.getCode() == null ? 500 : status.getCode();
                        sink.error(KubernetesApiException.of(request, code, status, null));
                    } else {
                        sink.next(new WatchEvent<>(WatchEvent.Type.valueOf(event.type().name()),
                                state.fromTree(event.object(), type.type())));
                    }
                });
    }

    private static KubernetesApiException typed(String request, ApiError e) {
        return KubernetesApiException.of(request, e.code(), e.toStatus(), e.retryAfter());
    }

    private static String and(String a, String b) {
        boolean hasA = a != null && !a.isEmpty();
        boolean hasB = b != null && !b.isEmpty();
        return hasA && hasB ? a + "," + b : hasA ? a : hasB ? b : null;
    }

    @Override
    public String toString() {
        return "InMemoryListerWatcher[" + type.apiVersion() + "/" + type.plural()
                + (namespace == null ? "" : " in " + namespace)
                + (labelSelector == null ? "" : " label " + labelSelector)
                + (fieldSelector == null ? "" : " field " + fieldSelector) + "]";
    }
}
