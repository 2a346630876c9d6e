package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.cache.ConcurrentIndexer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A {@link DeltaFifo} wired as the informer wires it (a drain loop on a scheduler, handing each entry to one
 * consumer), its drain scheduler one whose tasks wait until {@link #drain()} runs them on the test's
 * thread: until then pushes only queue and coalesce. (A {@code VirtualTimeScheduler} runs a task due now
 * at once, on the thread that schedules it.)
 */
final class SteppedFifo<T extends KubernetesObject> implements DeltaFifo.EntryConsumer<T> {

    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private final Scheduler scheduler = Schedulers.fromExecutor(tasks::add);
    final DeltaFifo<T> fifo;
    final List<FifoEntry<T>> entries = new ArrayList<>();
    final List<Throwable> failures = new ArrayList<>();
    private final BiConsumer<DeltaFifo<T>, FifoEntry<T>> apply;
    private final Disposable started;

    /** Entries are recorded only. */
    SteppedFifo(ConcurrentIndexer<T> cache) {
        this(cache, UnaryOperator.identity(), (fifo, entry) -> { });
    }

    /**
     * Each entry is recorded, then handed to {@code apply} with the FIFO (it applies the entry to the cache, as
     * the informer does, and may push more, as a producer racing the drain loop does).
     */
    SteppedFifo(ConcurrentIndexer<T> cache, UnaryOperator<T> transform, BiConsumer<DeltaFifo<T>, FifoEntry<T>> apply) {
        this.fifo = new DeltaFifo<>(cache, transform, scheduler, e -> { throw e; }, () -> { });
        this.apply = apply;
        this.started = fifo.start(this);
    }

    /** Runs the drain loop until nothing is pending; the entries delivered so far. */
    List<FifoEntry<T>> drain() {
        Runnable task;
        while ((task = tasks.poll()) != null) {
            task.run();
        }
        return entries;
    }

    /** Stops the FIFO, as disposing the informer does. */
    void stop() {
        started.dispose();
    }

    @Override
    public void accept(FifoEntry<T> entry) {
        entries.add(entry);
        apply.accept(fifo, entry);
    }

    @Override
    public void failed(Throwable cause) {
        failures.add(cause);
    }
}
