package io.reactiveinformer.controller;

import reactor.core.publisher.Mono;

/**
 * Brings the world in line with the desired state of one primary object (controller-runtime's
 * {@code reconcile.Reconciler}). It is given only the object's key: read the current state from the
 * informers' caches, which hold every change that caused the request (or a newer one); an object that
 * is no longer in the cache was deleted.
 *
 * <p>Reconciles must be idempotent: a request means "something about this object may have changed",
 * and many changes collapse into one request.
 *
 * <p><b>Threading:</b> {@link #reconcile} is called on a worker of the controller's scheduler, never for
 * a key whose previous reconcile has not terminated yet. It must not block: return a {@code Mono} that
 * does blocking work on {@code Schedulers.boundedElastic()} if it must. The returned {@code Mono} runs
 * wherever it chooses; until it terminates it occupies one of the controller's concurrent reconciles.
 */
@FunctionalInterface
public interface Reconciler {

    /**
     * Reconciles the object named by {@code request}.
     *
     * @return the {@link Result} (empty means {@link Result#done()}); an error requeues the request with
     *     rate limiting
     */
    Mono<Result> reconcile(Request request);
}
