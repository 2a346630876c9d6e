package io.reactiveinformer.controller;

import io.reactiveinformer.api.WriteFence;
import io.reactiveinformer.leaderelection.LeaseTerm;
import io.reactiveinformer.workqueue.Outcome;
import io.reactiveinformer.workqueue.WorkQueue;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.context.Context;

/**
 * What a controller's queue runs for each request ({@link WorkQueue#processWithOutcome}'s worker): the
 * {@link Reconciler}'s call, made on a worker of the controller's scheduler so a slow reconciler never
 * holds up the queue, and its {@link Result} turned into the queue's {@link Outcome}.
 *
 * <p>Before the call, the request waits (holding its worker slot, at most the read-your-writes bound) until
 * the informers have seen the writes its earlier reconciles recorded ({@link Writes}); past the bound it is
 * requeued through the rate limiter without a call, since the reconciler would read a state older than its
 * own. With a reconcile timeout, a call that runs longer is cancelled and fails, so it is requeued with
 * backoff like any error.
 *
 * <p>With an election, a request is reconciled only within the {@link LeaseTerm} of its shard: it is
 * dropped when the term is not held, the term is checked again right before the call (on the worker),
 * and the reconcile is cancelled the moment the term ends. Its writes are fenced by the term
 * ({@link WriteFence}): a replica that resumes after a pause longer than its renew deadline has its
 * reconciles' writes refused before its timers have even run to cancel them.
 */
final class RequestWorker implements Function<Request, Mono<Outcome>> {

    private static final Logger log = LoggerFactory.getLogger(Controller.class);

    private final String name;
    private final Reconciler reconciler;
    private final Scheduler scheduler;
    /** The terms held; null without election. */
    private final LeaseTerms leases;
    private final WriteExpectations writes;
    private final Duration writesBound;
    /** Null without a reconcile timeout. */
    private final Duration timeout;
    private final ReconcileMetrics metrics;
    /** Null without an observation registry. */
    private final ReconcileObservations observations;

    RequestWorker(String name, Reconciler reconciler, Scheduler scheduler, LeaseTerms leases, Duration writesBound,
                  Duration timeout, ReconcileMetrics metrics, ReconcileObservations observations) {
        this.name = name;
        this.reconciler = reconciler;
        this.scheduler = scheduler;
        this.leases = leases;
        this.writes = new WriteExpectations();
        this.writesBound = writesBound;
        this.timeout = timeout;
        this.metrics = metrics;
        this.observations = observations;
    }

    @Override
    public Mono<Outcome> apply(Request request) {
        LeaseTerm term = null;
        if (leases != null) {
            term = leases.termOf(request);
            if (term == null) {
                return Mono.just(Outcome.forget());
            }
        }
        LeaseTerm held = term;
        Mono<Outcome> attempt = Mono.defer(() -> {
            Mono<Boolean> caughtUp = writes.caughtUp(request, writesBound, scheduler);
            return caughtUp == null ? reconcile(request, held)
                    : caughtUp.publishOn(scheduler).flatMap(reached -> afterWait(request, held, reached));
        }).subscribeOn(scheduler);
        if (held == null) {
            return attempt;
        }
        return attempt.takeUntilOther(held.ended()).defaultIfEmpty(Outcome.forget());
    }

    private Mono<Outcome> afterWait(Request request, LeaseTerm term, boolean reached) {
        if (reached) {
            metrics.cacheCaughtUp();
            return reconcile(request, term);
        }
        metrics.cacheStale();
        log.debug("{}: the cache has not seen {}'s own writes within {}; requeued", name, request, writesBound);
        return Mono.just(Outcome.requeue());
    }

    /** Empty when the term ended meanwhile: checked right before the call, on the worker. */
    private Mono<Outcome> reconcile(Request request, LeaseTerm term) {
        if (term != null && !term.isHeld()) {
            return Mono.empty();
        }
        Context scope = Context.of(WriteExpectations.Scope.class, writes.scope(request));
        Context context = term == null ? scope
                : WriteFence.of("the term of Lease " + term.leaseName(), term::isHeld).putIn(scope);
        Mono<Result> call = Mono.defer(() -> reconciler.reconcile(request)).contextWrite(context);
        if (timeout != null) {
            call = call.timeout(timeout, Mono.defer(() -> {
                metrics.timedOut();
                return Mono.error(new TimeoutException(name + ": the reconcile of " + request
                        + " did not finish within " + timeout + " and was cancelled"));
            }), scheduler);
        }
        if (observations != null) {
            call = observations.observe(request, call);
        }
        return call.map(RequestWorker::outcomeOf);
    }

    private static Outcome outcomeOf(Result result) {
        if (result instanceof Result.RequeueAfter after) {
            return Outcome.requeueAfter(after.delay());
        }
        return result instanceof Result.Requeue ? Outcome.requeue() : Outcome.forget();
    }
}
