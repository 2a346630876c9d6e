package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.util.Objects;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Read-your-own-writes for reconcilers. A reconcile that writes an object and is run again before the
 * informer has seen that write reads the older state from the cache and may "correct" it back. Mark each
 * write with {@link #observedBy}: the controller records the resourceVersion it returned, and the next
 * reconcile of the same request starts only once that informer's cache has reached it (see
 * {@link SharedIndexInformer#storeReached}), or, after the controller's
 * {@link Controller.Builder#readYourWritesTimeout bound}, is requeued through the rate limiter instead.
 *
 * <pre>{@code
 * .reconciler(request -> ...
 *         .flatMap(map -> maps.patch(name, PatchType.MERGE, body).transform(Writes.observedBy(mapInformer)))
 *         .thenReturn(Result.done()))
 * }</pre>
 *
 * <p>The informer must watch the written object (its namespace and selectors included), or its cache reaches
 * the version only when something else advances it (a bookmark, about once a minute from kube-apiserver).
 * The write must run within the reconcile's {@code Mono} (the request travels in its Reactor
 * {@code Context}): a write subscribed separately, or outside any controller, is left as it is. Writes that
 * return no object (deletions) are not recorded: the deleted object's informer will see it gone anyway.
 */
public final class Writes {

    private Writes() {
    }

    /**
     * Records the object {@code write} returns as one the next reconcile of the current request must find
     * in {@code informer}'s cache; use with {@code Mono.transform}. Passes the object on unchanged.
     */
    public static <T extends KubernetesObject> Function<Mono<T>, Mono<T>> observedBy(SharedIndexInformer<? extends T> informer) {
        Objects.requireNonNull(informer, "informer");
        return write -> Mono.deferContextual(context -> {
            WriteExpectations.Scope scope = context.getOrDefault(WriteExpectations.Scope.class, null);
            return scope == null ? write : write.doOnNext(written -> scope.wrote(informer, written));
        });
    }
}
