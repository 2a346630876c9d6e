package io.reactiveinformer.controller;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Mono;

/**
 * Runs each reconcile inside a Micrometer {@link Observation} named {@value #NAME}: low-cardinality
 * {@code controller} (the controller's name) and {@code result} ({@code success}, {@code requeue},
 * {@code requeue_after}, {@code error}, {@code timeout}, or {@code cancelled} when the Lease term ended or the
 * controller stopped), high-cardinality {@code key} ({@code namespace/name}). The observation is the
 * reconcile's Reactor context entry {@link ObservationThreadLocalAccessor#KEY}, so what the reconciler
 * observes (its HTTP calls, its own observations) nests under it; its parent is the one in the context of the
 * caller, if any. Typed apart from {@link RequestWorker} so that Micrometer stays optional.
 */
final class ReconcileObservations {

    static final String NAME = "reactive.informer.reconcile";

    private final ObservationRegistry registry;
    private final String controller;

    private ReconcileObservations(ObservationRegistry registry, String controller) {
        this.registry = registry;
        this.controller = controller;
    }

    /** {@code registry} is an {@link ObservationRegistry}. */
    static ReconcileObservations of(Object registry, String controller) {
        return new ReconcileObservations((ObservationRegistry) registry, controller);
    }

    /** {@code call} observed; a timeout is the {@link TimeoutException} of the controller's reconcile timeout. */
    Mono<Result> observe(Request request, Mono<Result> call) {
        return Mono.deferContextual(context -> {
            Observation observation = Observation.createNotStarted(NAME, registry)
                    .contextualName("reconcile " + controller)
                    .parentObservation(context.getOrDefault(ObservationThreadLocalAccessor.KEY, null))
                    .lowCardinalityKeyValue("controller", controller)
                    .highCardinalityKeyValue("key", request.key())
                    .start();
            return call
                    .doOnSuccess(result -> {
                        observation.lowCardinalityKeyValue("result", resultOf(result));
                        observation.stop();
                    })
                    .doOnError(error -> {
                        observation.lowCardinalityKeyValue("result",
                                error instanceof TimeoutException ? "timeout" : "error");
                        observation.error(error);
                        observation.stop();
                    })
                    .doOnCancel(() -> {
                        observation.lowCardinalityKeyValue("result", "cancelled");
                        observation.stop();
                    })
                    .contextWrite(c -> c.put(ObservationThreadLocalAccessor.KEY, observation));
        });
    }

    private static String resultOf(Result result) {
        if (result instanceof Result.RequeueAfter) {
            return "requeue_after";
        }
        return result instanceof Result.Requeue ? "requeue" : "success";
    }
}
