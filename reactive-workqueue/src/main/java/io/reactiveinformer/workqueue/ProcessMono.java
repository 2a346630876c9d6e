package io.reactiveinformer.workqueue;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

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

    static final class Processor<T> implements Subscription {

        @SuppressWarnings("rawtypes")
        private static final AtomicIntegerFieldUpdater<Processor> WIP =
                AtomicIntegerFieldUpdater.newUpdater(Processor.class, "wip");

        @SuppressWarnings("rawtypes")
        private static final AtomicIntegerFieldUpdater<Processor> REMAINING =
                AtomicIntegerFieldUpdater.newUpdater(Processor.class, "remaining");

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

        @Override
        public void request(long n) {
            // Mono<Void>: nothing to emit, workers run from subscription on
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
            if (REMAINING.decrementAndGet(this) == 0 && !cancelled) {
                actual.onComplete();
            }
        }

        /**
         * Runs a slot that was delivered an item while parked. Serialized (reactor's
         * work-in-progress pattern): a slot delivered from within another slot's step waits for the
         * loop instead of running on top of it.
         */
        void handOff(ProcessSlot<T> slot) {
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
