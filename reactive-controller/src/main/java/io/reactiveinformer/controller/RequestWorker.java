package io.reactiveinformer.controller;

import io.reactiveinformer.leaderelection.LeaseTerm;
import io.reactiveinformer.workqueue.Outcome;
import io.reactiveinformer.workqueue.WorkQueue;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * What a controller's queue runs for each request ({@link WorkQueue#processWithOutcome}'s worker): the
 * {@link Reconciler}'s call, made on a worker of the controller's scheduler so a slow reconciler never
 * holds up the queue, and its {@link Result} turned into the queue's {@link Outcome}.
 *
 * <p>With an election, a request is reconciled only within the {@link LeaseTerm} of its shard: it is
 * dropped when the term is not held, the term is checked again right before the call (on the worker),
 * and the reconcile is cancelled the moment the term ends.
 */
final class RequestWorker implements Function<Request, Mono<Outcome>> {

    private final Reconciler reconciler;
    private final Scheduler scheduler;
    /** The terms held; null without election. */
    private final LeaseTerms leases;

    RequestWorker(Reconciler reconciler, Scheduler scheduler, LeaseTerms leases) {
        this.reconciler = reconciler;
        this.scheduler = scheduler;
        this.leases = leases;
    }

    @Override
    public Mono<Outcome> apply(Request request) {
        if (leases == null) {
            return Mono.defer(() -> reconciler.reconcile(request))
                    .subscribeOn(scheduler)
                    .map(RequestWorker::outcomeOf);
        }
        LeaseTerm term = leases.termOf(request);
        if (term == null) {
            return Mono.just(Outcome.forget());
        }
        // checked again right before the call, on the worker: the term may end in between
        return Mono.defer(() -> term.isHeld() ? reconciler.reconcile(request) : Mono.<Result>empty())
                .subscribeOn(scheduler)
                .takeUntilOther(term.ended())
                .map(RequestWorker::outcomeOf)
                .defaultIfEmpty(Outcome.forget());
    }

    private static Outcome outcomeOf(Result result) {
        if (result instanceof Result.RequeueAfter after) {
            return Outcome.requeueAfter(after.delay());
        }
        return result instanceof Result.Requeue ? Outcome.requeue() : Outcome.forget();
    }
}
