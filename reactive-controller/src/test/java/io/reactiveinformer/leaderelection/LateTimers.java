package io.reactiveinformer.leaderelection;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A virtual clock whose delayed tasks all run a fixed lag late, as timers do on a busy machine, while
 * tasks scheduled without delay run on time: so a task that became due before a deadline can run after it,
 * with the deadline's own task still pending.
 */
final class LateTimers {

    private LateTimers() {
    }

    static Scheduler of(VirtualTimeScheduler clock, Duration lag) {
        long lagNanos = lag.toNanos();
        return new Scheduler() {
            @Override
            public Disposable schedule(Runnable task) {
                return clock.schedule(task);
            }

            @Override
            public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
                return clock.schedule(task, unit.toNanos(delay) + lagNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public long now(TimeUnit unit) {
                return clock.now(unit);
            }

            @Override
            public Worker createWorker() {
                Worker worker = clock.createWorker();
                return new Worker() {
                    @Override
                    public Disposable schedule(Runnable task) {
                        return worker.schedule(task);
                    }

                    @Override
                    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
                        return worker.schedule(task, unit.toNanos(delay) + lagNanos, TimeUnit.NANOSECONDS);
                    }

                    @Override
                    public void dispose() {
                        worker.dispose();
                    }

                    @Override
                    public boolean isDisposed() {
                        return worker.isDisposed();
                    }
                };
            }
        };
    }
}
