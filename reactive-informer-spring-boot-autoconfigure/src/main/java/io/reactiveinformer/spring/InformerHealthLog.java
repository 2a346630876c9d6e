package io.reactiveinformer.spring;

import io.reactiveinformer.informer.InformerHealth;
import io.reactiveinformer.informer.SharedIndexInformer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import reactor.core.Disposable;

/**
 * Says once, at WARN, that an informer's cache went stale (its lists and watches keep failing, or access was
 * denied) or that it stopped on its own, and once, at INFO, that it follows the server again: an operator sees the
 * outage and its end, not a line per retry. One per informer, fed its {@link SharedIndexInformer#healthChanges()}
 * (one at a time, on the informer's observer scheduler).
 */
final class InformerHealthLog {

    /** A first failure is routine (a watch the server or a proxy cut); the retry failing too is an outage. */
    static final int OUTAGE_FAILURES = 2;

    private static final Logger log = LoggerFactory.getLogger(InformerHealthLog.class);

    record Line(Level level, String message) {
    }

    private enum State {
        FOLLOWING,
        FAILING,
        FORBIDDEN,
        STOPPED
    }

    private State state = State.FOLLOWING;

    static Disposable follow(SharedIndexInformer<?> informer) {
        InformerHealthLog health = new InformerHealthLog();
        return informer.healthChanges().subscribe(h -> {
            Line line = health.next(h);
            if (line != null) {
                log.atLevel(line.level()).log(line.message());
            }
        });
    }

    /** The line this change calls for, or null: only a change of state is told. */
    Line next(InformerHealth health) {
        State now = health.stopped() ? State.STOPPED
                : health.forbidden() ? State.FORBIDDEN
                : health.consecutiveFailures() >= OUTAGE_FAILURES ? State.FAILING
                : health.consecutiveFailures() == 0 ? State.FOLLOWING
                : state;   // one failure: not an outage yet, nor the end of one
        State before = state;
        state = now;
        if (now == before) {
            return null;
        }
        String name = health.name();
        return switch (now) {
            case FAILING -> new Line(Level.WARN, name + ": cannot list or watch (" + health.lastError().getMessage()
                    + "); its cache is stale while it retries with backoff; later failures are counted in its health");
            case FORBIDDEN -> new Line(Level.WARN, name + ": access denied (" + health.lastError().getMessage()
                    + "); its cache is kept but stale until access returns; it retries with backoff");
            case STOPPED -> health.stopCause() == null ? null  // stopped by its owner: the lifecycle says so
                    : new Line(Level.WARN, name + ": stopped, its cache frozen: " + health.stopCause());
            case FOLLOWING -> health.synced()
                    ? new Line(Level.INFO, name + ": follows the server again")
                    : null;
        };
    }
}
