package io.reactiveinformer.watch;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.client.Deadlines;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Fails a watch with {@link ReflectorException.Reason#WATCH_IDLE} once no event arrived for the idle
 * timeout. Rather than rescheduling a timer on every event (the cost of {@code Flux.timeout}), each
 * event only records its time, and one timer at a time checks it: about one timer per idle period.
 *
 * <p><b>Threading.</b> The watch's signals write the time of the last event; the timer reads it on a
 * worker of the scheduler; the field is volatile.
 */
final class IdleWatchGuard {

    private volatile long lastEventMillis;

    private IdleWatchGuard(long startedMillis) {
        this.lastEventMillis = startedMillis;
    }

    static <T extends KubernetesObject> Flux<WatchEvent<T>> guard(Flux<WatchEvent<T>> watch, Duration idleTimeout,
                                                                  Scheduler scheduler) {
        long idleMillis = idleTimeout.toMillis();
        return Flux.defer(() -> {
            IdleWatchGuard watchdog = new IdleWatchGuard(scheduler.now(TimeUnit.MILLISECONDS));
            Mono<Long> expired = Mono.defer(() -> {
                long remaining = watchdog.lastEventMillis + idleMillis - scheduler.now(TimeUnit.MILLISECONDS);
                return remaining <= 0 ? Mono.just(remaining)
                        : Mono.delay(Duration.ofMillis(remaining), scheduler).then(Mono.<Long>empty());
            }).repeatWhenEmpty(checks -> checks);
            return Deadlines.failWhen(
                    watch.doOnNext(event -> watchdog.lastEventMillis = scheduler.now(TimeUnit.MILLISECONDS)),
                    expired,
                    () -> new ReflectorException(ReflectorException.Reason.WATCH_IDLE,
                            "no watch event or bookmark for " + idleTimeout + "; presuming the connection dead", null));
        });
    }

    /**
     * Tells BlockHound (when an application installs it; found through {@code META-INF/services}) that
     * cancelling a timer is not a blocking call. A watch that ends on its event loop cancels this guard's
     * timer (and an SSE stream its heartbeat), which removes the task from {@code ScheduledThreadPoolExecutor}'s
     * delay queue under that queue's lock: held for a heap removal, never for I/O, but a contended handover
     * parks. Reactor's own integration allows the queue's {@code offer} and {@code take}, not {@code remove};
     * without this, a contended cancel fails with {@code BlockingOperationError} half-way through a
     * cancellation chain and leaves the subscriptions after it running.
     */
    public static final class BlockHoundSupport implements BlockHoundIntegration {

        @Override
        public void applyTo(BlockHound.Builder builder) {
            builder.allowBlockingCallsInside(ScheduledThreadPoolExecutor.class.getName() + "$DelayedWorkQueue", "remove");
        }
    }
}
