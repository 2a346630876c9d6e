package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A {@link Reconciler} that guards what it creates outside the object with a finalizer (controller-runtime's
 * finalizer pattern): the object cannot disappear before its cleanup ran.
 * <ul>
 *   <li>A live object without the finalizer gets it first; the reconcile runs only once the server has
 *       stored it, on the object as stored, so nothing is created that a deletion could leave behind.</li>
 *   <li>An object being deleted ({@code deletionTimestamp} set) that carries the finalizer gets its cleanup;
 *       only after the cleanup succeeded is the finalizer removed, and a failed cleanup is retried with backoff
 *       like any failed reconcile. One that does not carry it is left alone: no finalizer is ever added to an
 *       object being deleted (kube-apiserver refuses it with 422).</li>
 *   <li>An object gone from the cache needs nothing more: its finalizer, if it had one, was removed after
 *       its cleanup.</li>
 * </ul>
 * Both writes are merge patches conditional on the resourceVersion read from the cache, so a change made
 * meanwhile fails them with 409 Conflict and the request is retried on the newer object, and both are marked
 * with {@link Writes#observedBy}, so the next reconcile reads them back. The cleanup must be idempotent: it
 * runs again if the finalizer's removal fails.
 *
 * @param <T> the primary object type
 */
public final class Finalizer<T extends KubernetesObject> implements Reconciler {

    private final String name;
    private final SharedIndexInformer<T> informer;
    private final ResourceClient<T> client;
    private final Function<? super T, ? extends Mono<Result>> reconcile;
    private final Function<? super T, ? extends Mono<Void>> cleanup;

    private Finalizer(Builder<T> builder) {
        this.name = builder.name;
        this.informer = builder.informer;
        this.client = builder.client;
        this.reconcile = builder.reconcile;
        this.cleanup = builder.cleanup;
    }

    /**
     * @param name     the finalizer, a qualified name such as {@code example.com/cleanup}
     * @param informer the primary informer, read for the object's current state
     * @param client   writes the primary objects (any namespace: the request's is used)
     */
    public static <T extends KubernetesObject> Builder<T> builder(String name, SharedIndexInformer<T> informer,
                                                                 ResourceClient<T> client) {
        return new Builder<>(name, informer, client);
    }

    @Override
    public Mono<Result> reconcile(Request request) {
        T object = (request.namespace() == null ? informer.lister().get(request.name())
                : informer.lister().namespace(request.namespace()).get(request.name())).orElse(null);
        if (object == null) {
            return Mono.just(Result.done());
        }
        V1ObjectMeta metadata = object.getMetadata();
        List<String> finalizers = metadata.getFinalizers() == null ? List.of() : metadata.getFinalizers();
        if (metadata.getDeletionTimestamp() != null) {
            if (!finalizers.contains(name)) {
                return Mono.just(Result.done());
            }
            List<String> rest = new ArrayList<>(finalizers);
            rest.removeIf(name::equals);
            return Mono.defer(() -> cleanup.apply(object))
                    .then(patchFinalizers(request, metadata, rest))
                    .thenReturn(Result.done());
        }
        if (finalizers.contains(name)) {
            return Mono.defer(() -> reconcile.apply(object));
        }
        List<String> with = new ArrayList<>(finalizers);
        with.add(name);
        return patchFinalizers(request, metadata, with).flatMap(reconcile);
    }

    private Mono<T> patchFinalizers(Request request, V1ObjectMeta metadata, List<String> finalizers) {
        ObjectNode patch = JsonNodeFactory.instance.objectNode();
        ObjectNode meta = patch.putObject("metadata");
        ArrayNode list = meta.putArray("finalizers");
        finalizers.forEach(list::add);
        meta.put("resourceVersion", metadata.getResourceVersion());
        ResourceClient<T> scoped = request.namespace() == null ? client : client.inNamespace(request.namespace());
        return scoped.patch(request.name(), PatchType.MERGE, patch.toString()).transform(Writes.observedBy(informer));
    }

    @Override
    public String toString() {
        return "Finalizer[" + name + "]";
    }

    /**
     * Configures a {@link Finalizer}; both functions are required.
     *
     * @param <T> the primary object type
     */
    public static final class Builder<T extends KubernetesObject> {

        private final String name;
        private final SharedIndexInformer<T> informer;
        private final ResourceClient<T> client;
        private Function<? super T, ? extends Mono<Result>> reconcile;
        private Function<? super T, ? extends Mono<Void>> cleanup;

        private Builder(String name, SharedIndexInformer<T> informer, ResourceClient<T> client) {
            Objects.requireNonNull(name, "name");
            if (name.isEmpty()) {
                throw new IllegalArgumentException("the finalizer's name must not be empty");
            }
            this.name = name;
            this.informer = Objects.requireNonNull(informer, "informer");
            this.client = Objects.requireNonNull(client, "client");
        }

        /** Reconciles a live object, which carries the finalizer (as the cache has it). */
        public Builder<T> reconcile(Function<? super T, ? extends Mono<Result>> reconcile) {
            this.reconcile = Objects.requireNonNull(reconcile, "reconcile");
            return this;
        }

        /**
         * Cleans up after an object being deleted; the finalizer is removed once the returned {@code Mono}
         * completes. Must be idempotent.
         */
        public Builder<T> cleanup(Function<? super T, ? extends Mono<Void>> cleanup) {
            this.cleanup = Objects.requireNonNull(cleanup, "cleanup");
            return this;
        }

        public Finalizer<T> build() {
            if (reconcile == null || cleanup == null) {
                throw new IllegalStateException("a finalizer needs reconcile(...) and cleanup(...)");
            }
            return new Finalizer<>(this);
        }
    }
}
