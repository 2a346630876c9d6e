package io.reactiveinformer.leaderelection;

import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * One subscription of {@link LeaderElector#run()}: tries to acquire the Lease every (jittered) retry
 * period, renews it every retry period while holding it, and ends the term when a renewal has not
 * succeeded by the renew deadline or someone else holds the Lease; then campaigns again. A failed request
 * is retried no sooner than a retry period later, however it failed (see {@link #afterFailure}).
 *
 * <p>Every step runs as a task of one worker of the scheduler, so the state needs no lock and events
 * leave in order; API answers arrive on other threads and are handed back to the worker.
 */
final class LeaderCampaign implements Campaign {

    private static final Logger log = LoggerFactory.getLogger(LeaderCampaign.class);

    private final LeaseLock lock;
    private final String identity;
    private final ElectionTimings timings;
    private final Scheduler scheduler;
    private final Scheduler.Worker worker;
    private final boolean releaseOnCancel;
    private final ElectionMetrics metrics;
    private final RandomGenerator random;
    private final FluxSink<LeadershipEvent> events;
    private final Disposable.Swap pending = Disposables.swap();
    private final Disposable.Swap deadline = Disposables.swap();

    private volatile boolean stopped;
    private volatile LeaseTerm term;
    private String reportedHolder = "";

    LeaderCampaign(LeaseLock lock, String identity, ElectionTimings timings, Scheduler scheduler, boolean releaseOnCancel,
                   ElectionMetrics metrics, RandomGenerator random, FluxSink<LeadershipEvent> events) {
        this.lock = lock;
        this.identity = identity;
        this.timings = timings;
        this.scheduler = scheduler;
        this.worker = scheduler.createWorker();
        this.releaseOnCancel = releaseOnCancel;
        this.metrics = metrics;
        this.random = random;
        this.events = events;
    }

    @Override
    public void start() {
        worker.schedule(this::attempt);
    }

    private void attempt() {
        if (stopped) {
            return;
        }
        // the holder renews on the record it wrote last; a candidate reads the current one first
        Mono<Long> write = lock.acquireOrRenewNow();
        Mono<Long> attempt = lock.heldByMe() ? write
                : lock.fetch().then(Mono.defer(() -> lock.acquirable() ? write : Mono.just(-1L)));
        pending.update(attempt.timeout(timings.renewDeadline(), scheduler)
                .subscribe(sent -> worker.schedule(() -> attempted(sent)),
                        error -> worker.schedule(() -> failed(error))));
    }

    /** @param sent when the successful write was sent (clock millis), or -1 when none succeeded */
    private void attempted(long sent) {
        if (stopped) {
            return;
        }
        reportHolder();
        LeaseTerm current = term;
        if (current != null && !current.isHeld()) {
            // past its deadline, and the deadline's task is late (a busy machine): the term is over
            // whatever this attempt brought, as work checking isHeld() has already seen; a success
            // below begins a new term, whose Acquired event queues again what was dropped meanwhile
            lose("it was not renewed within " + timings.renewDeadline());
            current = null;
        }
        // a write answered only after its own deadline gives no term: others may take over any moment
        if (sent >= 0 && sent + timings.renewDeadline().toMillis() > now()) {
            long start = sent;
            if (current == null) {
                current = new LeaseTerm(lock.name(), 0, scheduler, start + timings.renewDeadline().toMillis());
                term = current;
                metrics.acquired();
                log.info("{} acquired {}", identity, lock.name());
                events.next(new LeadershipEvent.Acquired(current));
            } else {
                current.extend(start + timings.renewDeadline().toMillis());
            }
            watchDeadline(current);
            next(timings.retryPeriod().toMillis());
            return;
        }
        if (current != null && !lock.holder().isEmpty() && !lock.heldByMe()) {
            lose("it is held by " + lock.holder());
        }
        next(term != null ? timings.retryPeriod().toMillis() : untilNextTry());
    }

    private void failed(Throwable error) {
        if (stopped) {
            return;
        }
        log.warn("{}: {} of {} failed: {}", identity, term != null ? "renewing" : "acquiring", lock.name(),
                error.toString());
        next(afterFailure(error));
    }

    /**
     * The wait after a failed request (refused connection, 403, 429, 500, timeout: anything but a Conflict,
     * which {@link LeaseLock} turns into a plain "not acquired"). Never shorter than a retry period, whatever
     * the holder's expiry: a failure can return in microseconds, and a wait taken from an expiry that has
     * passed is zero, so without this floor a standby loops as fast as its requests fail (thousands of tries
     * a second while the API server is down). A holder renews every retry period, as client-go does, without
     * jitter: it is alone on its Lease, and jitter would spend tries its renew deadline leaves it. A candidate
     * waits a jittered retry period ({@link RetryDelays}). Either waits for the server's {@code Retry-After}
     * when it is longer.
     */
    private long afterFailure(Throwable error) {
        long floor = term != null ? timings.retryPeriod().toMillis() : RetryDelays.jittered(timings, random);
        return RetryDelays.afterFailure(error, floor, timings);
    }

    /**
     * After a try that went through but did not acquire the Lease. While someone else holds it, one retry
     * period, or less when its lease runs out sooner by our clock: so a vacant Lease is taken over at most a
     * retry period after the holder's last renewal plus a lease duration. Once that expiry has passed (this
     * try was the one at the expiry, and lost a race for the Lease) the expiry says nothing about when to try
     * next, and a wait taken from it would be zero: then, as with no holder, a jittered retry period
     * (client-go's factor 1.2), so that candidates racing for a free Lease spread out.
     */
    private long untilNextTry() {
        if (!lock.holder().isEmpty() && !lock.heldByMe()) {
            long untilExpiry = lock.expiresAt() - now();
            if (untilExpiry > 0) {
                return Math.min(timings.retryPeriod().toMillis(), untilExpiry);
            }
        }
        return RetryDelays.jittered(timings, random);
    }

    private void next(long delayMillis) {
        pending.update(worker.schedule(this::attempt, delayMillis, TimeUnit.MILLISECONDS));
    }

    private void watchDeadline(LeaseTerm current) {
        deadline.update(worker.schedule(() -> {
            if (term == current && !current.isHeld()) {
                lose("it was not renewed within " + timings.renewDeadline());
            } else if (term == current) {
                watchDeadline(current);
            }
        }, Math.max(0, current.deadline() - now()), TimeUnit.MILLISECONDS));
    }

    private void lose(String why) {
        LeaseTerm current = term;
        term = null;
        if (current != null && current.end()) {
            metrics.lost();
            log.warn("{} lost {}: {}", identity, lock.name(), why);
            events.next(new LeadershipEvent.Lost(current));
        }
    }

    private void reportHolder() {
        String holder = lock.holder();
        if (!holder.isEmpty() && !holder.equals(reportedHolder)) {
            reportedHolder = holder;
            events.next(new LeadershipEvent.NewLeader(lock.name(), holder));
        }
    }

    private long now() {
        return scheduler.now(TimeUnit.MILLISECONDS);
    }

    /**
     * Stops campaigning: the term (if any) ends at once, then, if configured, the Lease is released so that a
     * successor need not wait for it to expire.
     */
    @Override
    public void dispose() {
        if (stopped) {
            return;
        }
        stopped = true;
        pending.dispose();
        endTerm();
        worker.schedule(() -> {
            // an answer handled just before the stop may have begun a term
            endTerm();
            deadline.dispose();
            if (!releaseOnCancel || !lock.heldByMe()) {
                worker.dispose();
                return;
            }
            lock.release()
                    .timeout(timings.renewDeadline(), scheduler)
                    .doFinally(signal -> worker.dispose())
                    .subscribe(null, e -> log.warn("{}: releasing {} failed: {}", identity, lock.name(), e.toString()),
                            () -> log.info("{} released {}", identity, lock.name()));
        });
    }

    private void endTerm() {
        LeaseTerm current = term;
        if (current != null && current.end()) {
            metrics.lost();
        }
    }

    @Override
    public boolean isDisposed() {
        return stopped;
    }
}
