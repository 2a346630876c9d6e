package io.reactiveinformer.workqueue;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * {@link WorkQueue#get()}: on request, parks one demand in the queue. Emits the item on the
 * thread that made it available (the subscribing thread if one is ready), or completes empty once
 * the queue is shut down and drained. A cancellation that loses the race with the hand-off gives
 * the item back to the queue, so no item is left in processing without a consumer.
 */
final class GetMono<T> extends Mono<T> {

    private final DefaultWorkQueue<T> queue;

    private GetMono(DefaultWorkQueue<T> queue) {
        this.queue = queue;
    }

    /** Through {@code onAssembly}, so assembly hooks and {@code Hooks.onOperatorDebug()} see it. */
    static <T> Mono<T> assemble(DefaultWorkQueue<T> queue) {
        return onAssembly(new GetMono<>(queue));
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
        actual.onSubscribe(new GetDemand<>(queue, actual));
    }

    static final class GetDemand<T> extends Demand<T> implements Subscription {

        @SuppressWarnings("rawtypes")
        private static final AtomicIntegerFieldUpdater<GetDemand> REQUESTED =
                AtomicIntegerFieldUpdater.newUpdater(GetDemand.class, "requested");

        private final DefaultWorkQueue<T> queue;
        private final CoreSubscriber<? super T> actual;
        private volatile int requested;

        GetDemand(DefaultWorkQueue<T> queue, CoreSubscriber<? super T> actual) {
            this.queue = queue;
            this.actual = actual;
        }

        @Override
        public void request(long n) {
            if (Operators.validate(n) && REQUESTED.compareAndSet(this, 0, 1)) {
                queue.request(this);
            }
        }

        @Override
        public void cancel() {
            if (tryCancel() == WAITING) {
                queue.unpark(this);
            }
        }

        @Override
        void deliver(T item, int priority) {
            if (complete()) {
                actual.onNext(item);
                actual.onComplete();
            } else {
                queue.release(item);
            }
        }

        @Override
        void drained() {
            if (complete()) {
                actual.onComplete();
            }
        }
    }
}
