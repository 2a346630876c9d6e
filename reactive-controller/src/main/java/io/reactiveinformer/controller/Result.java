package io.reactiveinformer.controller;

import java.time.Duration;
import java.util.Objects;

/**
 * What follows a successful reconcile (controller-runtime's {@code reconcile.Result}). A reconcile that
 * fails (its {@code Mono} errors, or the reconciler throws) is always requeued with rate limiting.
 */
public sealed interface Result {

    /** Done: the request's failure history is forgotten and it is not requeued. */
    static Result done() {
        return Done.INSTANCE;
    }

    /**
     * Not done yet: the request is requeued through the rate limiter, its failure history kept, so its
     * delay grows as for an error (controller-runtime's {@code Requeue: true}).
     */
    static Result requeue() {
        return Requeue.INSTANCE;
    }

    /**
     * Done for now, look again later: the failure history is forgotten and the request requeued after
     * {@code delay} on the controller's scheduler (controller-runtime's {@code RequeueAfter}). Zero or
     * negative (a moment computed to be due already) is {@link #requeue()}, through the rate limiter: a
     * reconciler returning it every time would otherwise reconcile in a loop without a pause.
     */
    static Result requeueAfter(Duration delay) {
        return new RequeueAfter(delay);
    }

    /** See {@link Result#done()}. */
    record Done() implements Result {
        static final Done INSTANCE = new Done();
    }

    /** See {@link Result#requeue()}. */
    record Requeue() implements Result {
        static final Requeue INSTANCE = new Requeue();
    }

    /** See {@link Result#requeueAfter(Duration)}. */
    record RequeueAfter(Duration delay) implements Result {

        public RequeueAfter {
            Objects.requireNonNull(delay, "delay");
        }
    }
}
