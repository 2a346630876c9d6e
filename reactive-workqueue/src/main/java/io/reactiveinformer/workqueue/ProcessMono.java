package io.reactiveinformer.workqueue;

import java.util.HashSet;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.concurrent.Queues;
import reactor.util.context.Context;

/**
 * {@link WorkQueue#processWithOutcome}: keeps exactly as many demands parked in the queue as it
 * has free workers, so an item leaves the queue only when a worker can take it. All bookkeeping
 * runs in one serialized drain loop (reactor's work-in-progress pattern): signals from the queue
 * and from finished workers are put on an MPSC queue and whichever thread wins the loop handles
 * them, so a synchronously completing worker does not recurse into the next one.
 */
final class ProcessMono<T> extends Mono<Void> {

    private final DefaultWorkQueue<T> queue;
    private final int concurrency;
    private final Function<? super T, ? extends Publisher<?>> worker;
    private final boolean outcomes;

    /**
     * @param outcomes whether the work's last {@link Outcome} value decides what follows success;
     *     otherwise values are ignored and success forgets
     */
    ProcessMono(
            DefaultWorkQueue<T> queue,
            int concurrency,
            Function<? super T, ? extends Publisher<?>> worker,
            boolean outcomes) {
        this.queue = queue;
        this.concurrency = concurrency;
        this.worker = worker;
        this.outcomes = outcomes;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Void> actual) {
        Processor<T> processor = new Processor<>(queue, concurrency, worker, outcomes, actual);
        actual.onSubscribe(processor);
        processor.drain();
    }

    static final class Processor<T> implements Subscription {

        @SuppressWarnings("rawtypes")
        private static final AtomicIntegerFieldUpdater<Processor> WIP =
                AtomicIntegerFieldUpdater.newUpdater(Processor.class, "wip");

        final DefaultWorkQueue<T> queue;
        final int concurrency;
        final Function<? super T, ? extends Publisher<?>> worker;
        final boolean outcomes;
        final CoreSubscriber<? super Void> actual;

        /** Arrived {@link ItemDemand}s (with an item, or drained) and finished {@link Worker}s. */
        final Queue<Object> signals = Queues.unboundedMultiproducer().get();
        /** Parked demands and running workers, for cancellation; only touched by the drain loop. */
        final Set<Object> live = new HashSet<>();

        volatile int wip;
        volatile boolean cancelled;

        // drain-loop state
        int active;
        int parked;
        boolean drained;
        boolean completed;

        Processor(
                DefaultWorkQueue<T> queue,
                int concurrency,
                Function<? super T, ? extends Publisher<?>> worker,
                boolean outcomes,
                CoreSubscriber<? super Void> actual) {
            this.queue = queue;
            this.concurrency = concurrency;
            this.worker = worker;
            this.outcomes = outcomes;
            this.actual = actual;
        }

        @Override
        public void request(long n) {
            // Mono<Void>: nothing to emit, workers run from subscription on
        }

        @Override
        public void cancel() {
            cancelled = true;
            drain();
        }

        void signal(Object signal) {
            signals.offer(signal);
            drain();
        }

        @SuppressWarnings("unchecked")
        void drain() {
            if (WIP.getAndIncrement(this) != 0) {
                return;
            }
            int missed = 1;
            for (;;) {
                if (cancelled) {
                    cancelAll();
                } else {
                    Object signal;
                    while ((signal = signals.poll()) != null) {
                        if (signal instanceof Processor.Worker) {
                            live.remove(signal);
                            active--;
                        } else {
                            ItemDemand<T> demand = (ItemDemand<T>) signal;
                            parked--;
                            live.remove(demand);
                            if (demand.item == null) {
                                drained = true;
                            } else {
                                start(demand.item, demand.priority);
                            }
                        }
                    }
                    while (!drained && !cancelled && active + parked < concurrency) {
                        parked++;
                        ItemDemand<T> demand = new ItemDemand<>(this);
                        live.add(demand);
                        // may deliver at once, which re-enters drain() and only bumps wip
                        queue.request(demand);
                    }
                    if (drained && active == 0 && parked == 0 && !completed && signals.isEmpty()) {
                        completed = true;
                        actual.onComplete();
                    }
                }
                missed = WIP.addAndGet(this, -missed);
                if (missed == 0) {
                    return;
                }
            }
        }

        private void start(T item, int priority) {
            Publisher<?> work;
            try {
                work = Objects.requireNonNull(worker.apply(item), "the worker function returned null");
            } catch (Throwable e) {
                Exceptions.throwIfJvmFatal(e);
                work = Mono.error(e);
            }
            Worker w = new Worker(item, priority);
            active++;
            live.add(w);
            work.subscribe(w);
        }

        @SuppressWarnings("unchecked")
        private void cancelAll() {
            // demands first: items released by cancelled workers must not flow back to them
            for (Object o : live) {
                if (o instanceof ItemDemand) {
                    ItemDemand<T> demand = (ItemDemand<T>) o;
                    if (demand.tryCancel() == Demand.WAITING) {
                        queue.unpark(demand);
                    }
                }
            }
            for (Object o : live) {
                if (o instanceof Processor.Worker) {
                    ((Worker) o).cancel();
                }
            }
            live.clear();
            Object signal;
            while ((signal = signals.poll()) != null) {
                if (signal instanceof ItemDemand) {
                    T item = ((ItemDemand<T>) signal).item;
                    if (item != null) {
                        // handed over just before the cancellation: never started, give it back
                        queue.release(item);
                    }
                }
            }
        }

        /** Runs one item's work and settles it with the queue when the work terminates. */
        final class Worker implements CoreSubscriber<Object> {

            @SuppressWarnings("rawtypes")
            private static final AtomicReferenceFieldUpdater<Processor.Worker, Subscription> UPSTREAM =
                    AtomicReferenceFieldUpdater.newUpdater(Processor.Worker.class, Subscription.class, "upstream");

            @SuppressWarnings("rawtypes")
            private static final AtomicIntegerFieldUpdater<Processor.Worker> SETTLED =
                    AtomicIntegerFieldUpdater.newUpdater(Processor.Worker.class, "settled");

            final T item;
            final int priority;
            volatile Subscription upstream;
            volatile int settled;
            Outcome outcome;

            Worker(T item, int priority) {
                this.item = item;
                this.priority = priority;
            }

            @Override
            public Context currentContext() {
                return actual.currentContext();
            }

            @Override
            public void onSubscribe(Subscription s) {
                if (Operators.setOnce(UPSTREAM, this, s)) {
                    s.request(Long.MAX_VALUE);
                }
            }

            @Override
            public void onNext(Object value) {
                if (outcomes) {
                    outcome = (Outcome) value;
                }
            }

            @Override
            public void onError(Throwable e) {
                if (settle()) {
                    DefaultWorkQueue.LOG.warn(
                            "work queue {}: processing {} failed, requeued with rate limiting", queue.name(), item, e);
                    queue.addRateLimited(item, Priority.of(priority));
                    finish();
                }
            }

            @Override
            public void onComplete() {
                if (settle()) {
                    Outcome o = outcome == null ? Outcome.forget() : outcome;
                    switch (o.kind()) {
                        case FORGET -> queue.forget(item);
                        case REQUEUE -> queue.addRateLimited(item, Priority.of(priority));
                        case REQUEUE_AFTER -> {
                            queue.forget(item);
                            queue.addAfter(item, o.delay(), Priority.of(priority));
                        }
                    }
                    finish();
                }
            }

            void cancel() {
                if (settle()) {
                    Operators.terminate(UPSTREAM, this);
                    queue.release(item);
                }
            }

            /** Exactly one of completion, error and cancellation settles the item. */
            private boolean settle() {
                return SETTLED.compareAndSet(this, 0, 1);
            }

            private void finish() {
                queue.done(item);
                signal(this);
            }
        }
    }

    /** One free worker's wish for an item; carries the item (or null for "drained") back to the loop. */
    static final class ItemDemand<T> extends Demand<T> {

        final Processor<T> processor;
        T item;
        int priority;

        ItemDemand(Processor<T> processor) {
            this.processor = processor;
        }

        @Override
        void deliver(T item, int priority) {
            if (!complete()) {
                processor.queue.release(item);
                return;
            }
            this.item = item;
            this.priority = priority;
            processor.signal(this);
        }

        @Override
        void drained() {
            if (complete()) {
                processor.signal(this);
            }
        }
    }
}
