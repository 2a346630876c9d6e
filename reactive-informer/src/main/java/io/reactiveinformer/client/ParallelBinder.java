package io.reactiveinformer.client;

import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.client.ListDecoder.Batch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

/**
 * Binds a LIST response's items on a scheduler's workers while the connection's thread goes on reading,
 * and assembles the page in the server's order.
 *
 * <p>The connection's thread {@linkplain #offer offers} each buffer's {@link Batch} of raw items as it is
 * scanned; each batch becomes a task on the scheduler. The reader is never made to wait, so the response
 * body is consumed at full demand: withholding demand from it (a bounded {@code flatMapSequential}) paused
 * the HTTP/2 stream's reads, and LISTs to kube-apiserver stalled for their whole timeout under load.
 * Memory stays bounded all the same: once {@code maxBytesInFlight} bytes of raw items wait for or are in
 * binding on workers, the reader binds the next batch itself. The bound is large (megabytes) because the
 * reader is an event loop that other connections share: with a bound of a few batches, as before, the
 * reader bound most of a large list itself whenever the workers were busy, up to a megabyte of items
 * (over 100 ms of CPU) between two of the loop's other tasks. For the same reason {@link #result} never
 * binds: one task on the {@code tail} scheduler goes through the batches no worker has started yet, in
 * order, racing the workers for each, so a page never waits for a worker busy with other work (an
 * application's own tasks on {@code Schedulers.parallel()}) and never for the reader either.
 *
 * <p>A batch's raw bytes are dropped as soon as it is bound, and the bound items once the page is
 * assembled. An unpaginated LIST (the API server's watch cache ignores {@code limit}) is one page, and
 * kept to its end, its raw bytes weigh half as much as all the objects bound from them. And the binder
 * itself can stay reachable for a while after its page (class histograms taken once the handlers had the
 * page found it in about one round in three), so it keeps nothing it no longer needs.
 *
 * <p>Threading: {@link #offer} and {@link #result} are called in order from one thread at a time (the
 * connection's). The page is emitted on the thread that finishes the last batch: a worker, a {@code tail}
 * thread, or the reader's. {@link ListDecoder#bind} is thread-safe; each task claims its batch
 * before binding it, so no batch is bound twice.
 *
 * @param <T> the item type
 */
final class ParallelBinder<T> {

    private final ListDecoder<T> decoder;
    private final Scheduler scheduler;
    private final Scheduler tail;
    private final long maxBytesInFlight;
    /** Every batch offered, in order; only the reader adds to it. */
    private final List<Task> tasks = new ArrayList<>();
    /** Raw bytes of the batches handed to the scheduler and not yet bound. */
    private final AtomicLong bytesInFlight = new AtomicLong();
    /** Unfinished batches, plus one until the reader has offered its last: whoever takes it to 0 completes. */
    private final AtomicInteger pending = new AtomicInteger(1);
    private volatile RuntimeException failure;
    private volatile boolean cancelled;
    private volatile MonoSink<ObjectList<T>> sink;

    ParallelBinder(ListDecoder<T> decoder, Scheduler scheduler, Scheduler tail, long maxBytesInFlight) {
        this.decoder = decoder;
        this.scheduler = scheduler;
        this.tail = tail;
        this.maxBytesInFlight = maxBytesInFlight;
    }

    /**
     * Hands over the next batch: to a worker, or, when {@code maxBytesInFlight} are taken, bound here.
     *
     * @throws io.reactiveinformer.api.DecodeException if this or an earlier batch failed to bind, so that
     *                                                 the reader stops at the first malformed item
     */
    void offer(Batch batch) {
        throwIfFailed();
        if (batch.isEmpty()) {
            return;
        }
        Task task = new Task(batch);
        tasks.add(task);
        pending.incrementAndGet();
        if (bytesInFlight.get() < maxBytesInFlight) {
            bytesInFlight.addAndGet(task.bytes);
            try {
                scheduler.schedule(task);
                return;
            } catch (RejectedExecutionException shutDown) {
                bytesInFlight.addAndGet(-task.bytes);
            }
        }
        task.runHere();
        throwIfFailed();
    }

    /**
     * The page, once the body has ended and every batch is bound: those no worker has started yet are
     * offered to one {@code tail} task too. Subscribe once, after the last {@link #offer}; cancelling
     * drops the work not yet started.
     */
    Mono<ObjectList<T>> result() {
        return Mono.create(sink -> {
            this.sink = sink;
            sink.onCancel(this::cancel);
            List<Task> unstarted = new ArrayList<>();
            for (Task task : tasks) {
                if (task.get() == 0) {
                    unstarted.add(task);
                }
            }
            if (!unstarted.isEmpty()) {
                try {
                    // one task, not one per batch: fanned out on boundedElastic, each page started a score of
                    // threads on two cores and decoded at a fifth of the speed until the JIT caught up
                    tail.schedule(() -> unstarted.forEach(Task::run));
                } catch (RejectedExecutionException busy) {
                    // their workers still bind them
                }
            }
            finishOne();
        });
    }

    /** Stops binding: tasks not started yet do nothing. */
    void cancel() {
        cancelled = true;
    }

    private void throwIfFailed() {
        RuntimeException e = failure;
        if (e != null) {
            throw e;
        }
    }

    private void finishOne() {
        if (pending.decrementAndGet() != 0) {
            return;
        }
        MonoSink<ObjectList<T>> s = sink;
        RuntimeException e = failure;
        boolean wanted = s != null && !cancelled;
        List<T> items = wanted && e == null ? boundItems() : null;
        // the binder keeps nothing of the page once it is out, whatever its end
        tasks.clear();
        if (!wanted) {
            // the body failed or was cancelled before result() was subscribed: nobody waits for the page
            return;
        }
        if (e != null) {
            s.error(e);
            return;
        }
        try {
            s.success(decoder.end(items));
        } catch (RuntimeException malformed) {
            s.error(malformed);
        }
    }

    /** The page's items in list order, taken out of their tasks. */
    private List<T> boundItems() {
        int size = 0;
        for (Task task : tasks) {
            size += task.items.size();
        }
        List<T> items = new ArrayList<>(size);
        for (Task task : tasks) {
            items.addAll(task.items);
            task.items = List.of();
        }
        return items;
    }

    /** One batch, bound by a worker or by the reader. */
    private final class Task extends AtomicInteger implements Runnable {

        /** The raw items; {@code null} once claimed, so their bytes go as soon as they are bound. */
        private Batch batch;
        private final long bytes;
        /** Written by the thread that bound it, read after {@code pending} reached 0. */
        private List<T> items = List.of();

        Task(Batch batch) {
            this.batch = batch;
            this.bytes = batch.bytes();
        }

        /** On a worker or a {@code tail} thread. */
        @Override
        public void run() {
            if (claim()) {
                bind();
                bytesInFlight.addAndGet(-bytes);
                finishOne();
            }
        }

        /** On the reader: a batch no worker was given. */
        void runHere() {
            if (claim()) {
                bind();
                finishOne();
            }
        }

        private boolean claim() {
            return compareAndSet(0, 1);
        }

        private void bind() {
            Batch raw = batch;
            batch = null;
            if (!cancelled && failure == null) {
                try {
                    items = decoder.bind(raw);
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    }
                }
            }
        }
    }
}
