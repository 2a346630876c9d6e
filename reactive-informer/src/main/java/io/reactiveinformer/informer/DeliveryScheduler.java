package io.reactiveinformer.informer;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;
import reactor.core.scheduler.NonBlocking;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The default scheduler of subscribers' drain tasks: one work-stealing pool per JVM with a thread per
 * core, shared by every informer.
 *
 * <p>Why not {@link Schedulers#parallel()}: it is a set of single-thread executors that tasks are dealt to
 * round-robin, each with its own queue, so a task dealt to the thread that is running a slow handler's
 * call waits for that call even while another thread is idle. Here an idle thread takes the tasks queued
 * behind a busy one (a {@link ForkJoinPool} in FIFO mode; submitting never takes a lock), so a fast
 * subscriber waits for a slow one's call only when every thread is busy. Its threads are daemons and
 * {@link NonBlocking}: BlockHound rejects blocking calls on them, as on {@code parallel()}; blocking
 * handlers belong on the blocking scheduler.
 */
final class DeliveryScheduler {

    private static final class Holder {
        static final Scheduler SHARED = pool("informer-delivery", Runtime.getRuntime().availableProcessors());
    }

    private static final class InitialStateHolder {
        static final Scheduler SHARED = pool("informer-initial", Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
    }

    private DeliveryScheduler() {
    }

    static Scheduler shared() {
        return Holder.SHARED;
    }

    /**
     * Where new subscribers' initial states (the cache as adds) are handed over when the delivery scheduler
     * is the default one: a second pool, of half the cores. Two hundred subscribers joining an informer of
     * 100,000 objects are twenty million notifications; on the delivery pool, the apply loop and every
     * existing subscriber would queue behind their time slices (measured: a fast handler's lag p99 11.7 s
     * during such a storm). Here they share at most half the cores among themselves, and live changes keep
     * the delivery pool.
     */
    static Scheduler sharedInitialState() {
        return InitialStateHolder.SHARED;
    }

    private static Scheduler pool(String name, int threads) {
        return Schedulers.fromExecutorService(
                new ForkJoinPool(threads, pool -> new DeliveryThread(pool, name), null, true), name);
    }

    private static final class DeliveryThread extends ForkJoinWorkerThread implements NonBlocking {

        DeliveryThread(ForkJoinPool pool, String name) {
            super(pool);
            setName(name + "-" + getPoolIndex());
            setDaemon(true);
        }
    }

    /**
     * Tells BlockHound (when an application installs it; found through {@code META-INF/services}) that an
     * idle delivery thread waiting for work is not a blocking call, as Reactor's own integration says of
     * its schedulers' idle waits.
     */
    public static final class BlockHoundSupport implements BlockHoundIntegration {

        @Override
        public void applyTo(BlockHound.Builder builder) {
            builder.allowBlockingCallsInside(ForkJoinPool.class.getName(), "awaitWork");
        }
    }
}
