package io.reactiveinformer.workqueue;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Function;
import java.util.stream.Stream;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Scannable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * {@link WorkQueue#processWithOutcome}: {@code concurrency} worker {@link ProcessSlot slots}, each
 * either parked in the queue as a demand or running one item's work, so an item leaves the queue
 * only when a worker can take it.
 *
 * <p>A slot is allocated once and reused for every item: it is the demand parked in the queue and
 * the subscriber of the work, like the single inner subscriber of reactor's {@code concatMap}.
 * When an item's work terminates, the slot marks it done and takes the next ready item in one
 * step under the queue's lock ({@link DefaultWorkQueue#next}), and runs it in a loop on the same
 * thread: work that completes synchronously does not recurse, and a busy queue costs no hand-off
 * per item. Only items delivered to a parked slot go through the processor's serialized
 * hand-off loop, which keeps slots that serve each other from nesting on one stack.
 *
 * <p>The workers run from subscription on, whatever the demand: the Mono emits no value, so a valid
 * {@code request(n)} is only recorded. A {@code request(n)} with {@code n <= 0} cancels the workers,
 * as {@code cancel()} does, and signals an {@link IllegalArgumentException} (Reactive Streams rule
 * 3.9) instead of only logging it as Reactor's operators do: the subscriber asked for something
 * invalid, and should learn that its workers stopped. One compare-and-set decides between that error
 * and the completion, so the subscriber gets exactly one of them.
 *
 * <p>Why a hand-written operator: the same semantics composed from public operators on
 * {@link WorkQueue#get()} ({@code concurrency} lanes of {@code get → work → forget, done → repeat} merged by
 * {@code flatMap}) handled 0.97 M items/s with one worker and 1.0 M with four, allocating 496 and 512 B per
 * item; this operator 2.44 M and 2.57 M items/s (2.5×) at 120 B per item (4.1× less), work inline, one JMH
 * run on 2 cores ({@code ProcessVsComposedBenchmark}, {@code benchmarks/results/jmh/}). With work hopped to
 * {@code Schedulers.parallel()} the thread switch dominates and both vary widely run to run; this operator
 * still allocates half as much (300–328 against 684–706 B per item).
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
    private ProcessMono(
            DefaultWorkQueue<T> queue,
            int concurrency,
            Function<? super T, ? extends Publisher<?>> worker,
            boolean outcomes) {
        this.queue = queue;
        this.concurrency = concurrency;
        this.worker = worker;
        this.outcomes = outcomes;
    }

    /** Through {@code onAssembly}, so assembly hooks and {@code Hooks.onOperatorDebug()} see it. */
    static <T> Mono<Void> assemble(DefaultWorkQueue<T> queue, int concurrency,
                                   Function<? super T, ? extends Publisher<?>> worker, boolean outcomes) {
        return onAssembly(new ProcessMono<>(queue, concurrency, worker, outcomes));
    }

    @Override
    public void subscribe(CoreSubscriber<? super Void> actual) {
        Processor<T> processor = new Processor<>(queue, concurrency, worker, outcomes, actual);
        actual.onSubscribe(processor);
        processor.start();
    }

    /**
     * The subscription. {@link Scannable}: {@code RUN_STYLE} is {@code ASYNC} (completion comes on the
     * thread of the last worker to see the end); its {@link #inners() inners} are the slots.
     */
    static final class Processor<T> implements Subscription, Scannable {

        @SuppressWarnings("rawtypes")
        private static final AtomicIntegerFieldUpdater<Processor> WIP =
                AtomicIntegerFieldUpdater.newUpdater(Processor.class, "wip");

        @SuppressWarnings("rawtypes")
        private static final AtomicIntegerFieldUpdater<Processor> REMAINING =
                AtomicIntegerFieldUpdater.newUpdater(Processor.class, "remaining");

        @SuppressWarnings("rawtypes")
        private static final AtomicLongFieldUpdater<Processor> REQUESTED =
                AtomicLongFieldUpdater.newUpdater(Processor.class, "requested");

        @SuppressWarnings("rawtypes")
        private static final AtomicIntegerFieldUpdater<Processor> SIGNALLED =
                AtomicIntegerFieldUpdater.newUpdater(Processor.class, "signalled");

        @SuppressWarnings("rawtypes")
        private static final AtomicReferenceFieldUpdater<Processor, ProcessSlot> DELIVERED =
                AtomicReferenceFieldUpdater.newUpdater(Processor.class, ProcessSlot.class, "delivered");

        final DefaultWorkQueue<T> queue;
        final Function<? super T, ? extends Publisher<?>> worker;
        final boolean outcomes;
        final CoreSubscriber<? super Void> actual;
        final ProcessSlot<T>[] slots;

        /** Slots that were delivered an item while parked, waiting for the hand-off loop (a stack). */
        volatile ProcessSlot<T> delivered;

        volatile int wip;
        /** Slots that have not yet seen the end of the queue. */
        volatile int remaining;
        volatile boolean cancelled;
        /** Recorded for {@link Attr#REQUESTED_FROM_DOWNSTREAM} only: the workers do not wait for it. */
        volatile long requested;
        /** 1 once the subscriber was sent its one terminal signal. */
        volatile int signalled;

        @SuppressWarnings("unchecked")
        Processor(
                DefaultWorkQueue<T> queue,
                int concurrency,
                Function<? super T, ? extends Publisher<?>> worker,
                boolean outcomes,
                CoreSubscriber<? super Void> actual) {
            this.queue = queue;
            this.worker = worker;
            this.outcomes = outcomes;
            this.actual = actual;
            this.slots = new ProcessSlot[concurrency];
            for (int i = 0; i < concurrency; i++) {
                slots[i] = new ProcessSlot<>(this);
            }
            this.remaining = concurrency;
        }

        void start() {
            for (ProcessSlot<T> slot : slots) {
                if (cancelled) {
                    return;
                }
                if (slot.advance(null)) {
                    slot.run();
                }
            }
        }

        /** Rule 3.9: {@code n <= 0} cancels and signals an {@link IllegalArgumentException} (see the class Javadoc). */
        @Override
        public void request(long n) {
            if (n <= 0) {
                if (cancelled) {
                    return;
                }
                cancel();
                if (SIGNALLED.compareAndSet(this, 0, 1)) {
                    actual.onError(Exceptions.nullOrNegativeRequestException(n));
                }
                return;
            }
            // Mono<Void>: nothing to emit, workers run from subscription on
            Operators.addCap(REQUESTED, this, n);
        }

        @Override
        public void cancel() {
            if (cancelled) {
                return;
            }
            cancelled = true;
            for (ProcessSlot<T> slot : slots) {
                slot.cancel();
            }
        }

        /** A slot saw the end of the queue; the last one completes the subscriber. */
        void ended() {
            if (REMAINING.decrementAndGet(this) == 0 && !cancelled && SIGNALLED.compareAndSet(this, 0, 1)) {
                actual.onComplete();
            }
        }

        @Override
        public Object scanUnsafe(Attr key) {
            if (key == Attr.ACTUAL) {
                return actual;
            }
            if (key == Attr.CANCELLED) {
                return cancelled && signalled == 0;
            }
            if (key == Attr.TERMINATED) {
                return signalled == 1;
            }
            if (key == Attr.REQUESTED_FROM_DOWNSTREAM) {
                return requested;
            }
            if (key == Attr.RUN_STYLE) {
                return Attr.RunStyle.ASYNC;
            }
            return null;
        }

        @Override
        public Stream<? extends Scannable> inners() {
            return Stream.of(slots);
        }

        /**
         * Runs a slot that was delivered an item while parked. Serialized (reactor's
         * work-in-progress pattern): a slot delivered from within another slot's step waits for the
         * loop instead of running on top of it.
         */
        void handOff(ProcessSlot<T> slot) {
            if (wip == 0 && WIP.compareAndSet(this, 0, 1)) {
                // nobody in the loop (the common case, an add() delivering to a parked slot): run
                // the slot here without going through the stack
                slot.run();
                if (WIP.decrementAndGet(this) == 0) {
                    return;
                }
            } else {
                for (;;) {
                    ProcessSlot<T> head = delivered;
                    slot.nextDelivered = head;
                    if (DELIVERED.compareAndSet(this, head, slot)) {
                        break;
                    }
                }
                if (WIP.getAndIncrement(this) != 0) {
                    return;
                }
            }
            int missed = 1;
            for (;;) {
                @SuppressWarnings("unchecked")
                ProcessSlot<T> s = DELIVERED.getAndSet(this, null);
                while (s != null) {
                    ProcessSlot<T> next = s.nextDelivered;
                    s.nextDelivered = null;
                    s.run();
                    s = next;
                }
                missed = WIP.addAndGet(this, -missed);
                if (missed == 0) {
                    return;
                }
            }
        }
    }
}
