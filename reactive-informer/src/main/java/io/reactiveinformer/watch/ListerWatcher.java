package io.reactiveinformer.watch;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.ResourceClient;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The two calls a reflector needs from the API server, for one resource (and namespace and selectors).
 * Implementations: {@link #of(ResourceClient)} over the HTTP client, and the test kit's in-memory one.
 *
 * <p>Both calls are cold: nothing is sent before subscription, and cancelling closes the request.
 * Errors arrive as {@link io.reactiveinformer.api.KubernetesClientException} subtypes, so the
 * reflector can tell a relist (410) from a back-off (429, 5xx, transport) from an access problem (401/403).
 *
 * @param <T> the object type
 */
public interface ListerWatcher<T> {

    /** One page of the list. */
    Mono<ObjectList<T>> list(ListOptions options);

    /**
     * One page of the list, each item replaced by {@code intern}'s answer: how a reflector lets its consumer swap
     * a listed object for an instance of the same state it holds already (see {@link Reflector.Builder#interner}).
     * This default interns the page once it is whole; an implementation that decodes items one by one should
     * intern each as it is decoded, so that the page never holds the copies the consumer did not need, as
     * {@link #of(ResourceClient)} does. {@code intern} may be called from any thread, concurrently.
     */
    default Mono<ObjectList<T>> list(ListOptions options, UnaryOperator<T> intern) {
        return list(options).map(page -> interned(page, intern));
    }

    /** {@code page} itself when {@code intern} answers every item with itself: a whole list is not copied for nothing. */
    private static <T> ObjectList<T> interned(ObjectList<T> page, UnaryOperator<T> intern) {
        List<T> items = page.items();
        List<T> interned = null;
        for (int i = 0; i < items.size(); i++) {
            T item = items.get(i);
            T answer = intern.apply(item);
            if (interned == null && answer != item) {
                interned = new ArrayList<>(items.subList(0, i));
            }
            if (interned != null) {
                interned.add(answer);
            }
        }
        return interned == null ? page : new ObjectList<>(interned, page.resourceVersion(), page.continueToken(),
                page.remainingItemCount(), page.shardSelector());
    }

    /** A watch stream; it completes when the server closes it normally. */
    Flux<WatchEvent<T>> watch(WatchOptions options);

    /**
     * Lists and watches through {@code client}, with its namespace and selectors (client-go's
     * {@code NewListWatchFromClient}). The adapter lives here so the client never depends on the reflector.
     */
    static <T extends KubernetesObject> ListerWatcher<T> of(ResourceClient<T> client) {
        return new ClientListerWatcher<>(client);
    }
}
