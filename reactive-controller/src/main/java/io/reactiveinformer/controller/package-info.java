/**
 * Controllers on top of informers and work queues (controller-runtime's {@code controller},
 * {@code reconcile}, {@code handler} and {@code predicate}): a {@link io.reactiveinformer.controller.Controller}
 * watches a primary kind and related kinds, turns their notifications into
 * {@link io.reactiveinformer.controller.Request}s, and runs a {@link io.reactiveinformer.controller.Reconciler}
 * for each with rate-limited retries, never twice at once for one request.
 *
 * <p>Start at {@link io.reactiveinformer.controller.Controller#builder}.
 */
package io.reactiveinformer.controller;
