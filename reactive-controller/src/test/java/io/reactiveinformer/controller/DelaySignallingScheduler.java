package io.reactiveinformer.controller;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * A scheduler that tells of each delayed task once it is scheduled, so that a test advances virtual time only
 * after a delay started on another thread (a retry after an HTTP answer) is on the clock.
 */
final class DelaySignallingScheduler implements Scheduler {

    /** The delays scheduled, in order. */
    final BlockingQueue<Duration> delays = new LinkedBlockingQueue<>();
    private final Scheduler delegate;

    DelaySignallingScheduler(Scheduler delegate) {
        this.delegate = delegate;
    }

    @Override
    public Disposable schedule(Runnable task) {
        return delegate.schedule(task);
    }

    @Override
    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
        Disposable scheduled = delegate.schedule(task, delay, unit);
        delays.add(Duration.ofNanos(unit.toNanos(delay)));
        return scheduled;
    }

    @Override
    public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
        return delegate.schedulePeriodically(task, initialDelay, period, unit);
    }

    @Override
    public long now(TimeUnit unit) {
        return delegate.now(unit);
    }

    @Override
    public Worker createWorker() {
        return delegate.createWorker();
    }
}
