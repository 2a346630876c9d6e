package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.time.Duration;
import java.util.Objects;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.retry.Retry;

/**
 * Writes the status of primary objects, the two ways controllers do, each marked with
 * {@link Writes#observedBy} so that the next reconcile reads it back:
 * <ul>
 *   <li>{@link #apply}: server-side apply as this writer's field manager, forced: the controller owns the status
 *       it computes, and fields it stops applying are removed unless another manager owns them too. No read and
 *       no conflict with writers of other fields.</li>
 *   <li>{@link #update}: read, change, replace the status, retried on Conflict as client-go's
 *       {@code retry.RetryOnConflict(retry.DefaultRetry, ...)}: at most five attempts, about 10 ms apart
 *       (10 % jitter) on the scheduler given, each on a fresh read from the server.</li>
 * </ul>
 *
 * @param <T> the primary object type (with a {@code status} subresource)
 */
public final class StatusWriter<T extends KubernetesObject> {

    private static final int ATTEMPTS = 5;
    private static final Duration CONFLICT_DELAY = Duration.ofMillis(10);

    private final ResourceClient<T> client;
    private final SharedIndexInformer<T> informer;
    private final String fieldManager;
    private final Scheduler scheduler;

    private StatusWriter(ResourceClient<T> client, SharedIndexInformer<T> informer, String fieldManager, Scheduler scheduler) {
        this.client = client;
        this.informer = informer;
        this.fieldManager = fieldManager;
        this.scheduler = scheduler;
    }

    /**
     * @param client       writes the primary objects (any namespace: each object's or request's is used)
     * @param informer     the primary informer, which the writes are marked for
     * @param fieldManager the field manager {@link #apply} applies as
     * @param scheduler    runs the waits between conflicting updates (the controller's scheduler)
     */
    public static <T extends KubernetesObject> StatusWriter<T> of(ResourceClient<T> client, SharedIndexInformer<T> informer,
                                                                 String fieldManager, Scheduler scheduler) {
        Objects.requireNonNull(fieldManager, "fieldManager");
        if (fieldManager.isEmpty()) {
            throw new IllegalArgumentException("fieldManager must not be empty");
        }
        return new StatusWriter<>(Objects.requireNonNull(client, "client"), Objects.requireNonNull(informer, "informer"),
                fieldManager, Objects.requireNonNull(scheduler, "scheduler"));
    }

    /**
     * Applies {@code status}: an object with {@code apiVersion}, {@code kind}, its name and namespace, and only
     * the status fields this controller sets (build a new one; do not send an object from the cache, whose
     * other fields it would claim).
     */
    public Mono<T> apply(T status) {
        Objects.requireNonNull(status, "status");
        return client.applyStatus(status, fieldManager, true).transform(Writes.observedBy(informer));
    }

    /**
     * Reads the object named by {@code request}, lets {@code change} set its status (it may change the instance
     * read and return it), and replaces the status with it, conditional on the resourceVersion read; a Conflict
     * repeats all three, up to five attempts, and then fails with the last Conflict.
     */
    public Mono<T> update(Request request, UnaryOperator<T> change) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(change, "change");
        ResourceClient<T> scoped = request.namespace() == null ? client : client.inNamespace(request.namespace());
        return Mono.defer(() -> scoped.get(request.name()))
                .map(change)
                .flatMap(scoped::replaceStatus)
                .retryWhen(Retry.fixedDelay(ATTEMPTS - 1, CONFLICT_DELAY)
                        .jitter(0.1)
                        .filter(KubernetesApiException.Conflict.class::isInstance)
                        .scheduler(scheduler)
                        .onRetryExhaustedThrow((spec, signal) -> signal.failure()))
                .transform(Writes.observedBy(informer));
    }

    @Override
    public String toString() {
        return "StatusWriter[" + fieldManager + "]";
    }
}
