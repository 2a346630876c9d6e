package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * When each handler of one informer is due for a resync (client-go's per-handler resync periods): the
 * informer's check period, each handler's effective period and next due time, and the set of handlers
 * due at the latest check, which the apply loop reads to route resync notifications.
 *
 * <p><b>Threading.</b> {@link #join} runs on the subscribing thread and {@link #start} on the starting
 * one: a private lock orders them, so that a handler joining before start lowers the check period that
 * start uses (both O(1)). {@link #check} runs on the scheduler's timer; the handler fields they share
 * are volatile, and the due set is replaced as a whole, so the apply loop reads it without a lock.
 */
final class ResyncSchedule<T extends KubernetesObject> {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    private final String informer;
    private final Scheduler scheduler;
    private final Object lock = new Object();
    /** Lowered by handlers that join before start; written under {@code lock}. */
    private volatile Duration checkPeriod;
    /** Guarded by {@code lock}. */
    private boolean started;
    private volatile Set<Handler<T>> due = Set.of();

    ResyncSchedule(String informer, Scheduler scheduler, Duration checkPeriod) {
        this.informer = informer;
        this.scheduler = scheduler;
        this.checkPeriod = checkPeriod;
    }

    Duration checkPeriod() {
        return checkPeriod;
    }

    /** The handlers whose resync was due at the latest check. */
    Set<Handler<T>> due() {
        return due;
    }

    /** Sets {@code handler}'s effective period and first due time. */
    void join(Handler<T> handler) {
        synchronized (lock) {
            handler.resyncPeriod = effectivePeriod(handler, started);
        }
        handler.nextResyncMillis = scheduler.now(TimeUnit.MILLISECONDS) + handler.resyncPeriod.toMillis();
    }

    /** client-go's rules: at least the minimum; below the check period it lowers it before start, else is raised to it. */
    private Duration effectivePeriod(Handler<T> handler, boolean started) {
        Duration period = handler.options().resyncPeriod();
        if (period.isZero()) {
            return period;
        }
        Duration check = checkPeriod;
        if (check.isZero() || period.compareTo(check) < 0) {
            if (!started) {
                checkPeriod = period;
            } else if (check.isZero()) {
                log.warn("{}: handler {} asks for a resync every {}, but the informer started without resync checks; "
                        + "it gets no resync", informer, handler.name(), period);
                return Duration.ZERO;
            } else {
                log.warn("{}: handler {} asks for a resync every {}, below the started informer's check period {}; "
                        + "using the check period", informer, handler.name(), period, check);
                return check;
            }
        }
        return period;
    }

    /** Checks every check period which of {@code handlers} are due and, when some are, runs {@code resync}. */
    Disposable start(Supplier<Handler<T>[]> handlers, Runnable resync) {
        Duration period;
        synchronized (lock) {
            started = true;
            period = checkPeriod;
        }
        if (period.isZero()) {
            return Disposables.disposed();
        }
        return Flux.interval(period, period, scheduler).subscribe(tick -> check(handlers.get(), resync));
    }

    private void check(Handler<T>[] handlers, Runnable resync) {
        long now = scheduler.now(TimeUnit.MILLISECONDS);
        Set<Handler<T>> dueNow = new HashSet<>();
        for (Handler<T> handler : handlers) {
            long period = handler.resyncPeriod.toMillis();
            if (period > 0 && now >= handler.nextResyncMillis) {
                dueNow.add(handler);
                handler.nextResyncMillis = now + period;
            }
        }
        due = dueNow;
        if (!dueNow.isEmpty()) {
            resync.run();
        }
    }
}
