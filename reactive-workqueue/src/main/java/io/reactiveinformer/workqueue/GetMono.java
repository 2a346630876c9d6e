package io.reactiveinformer.workqueue;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Scannable;
import reactor.core.publisher.Mono;

/**
 * {@link WorkQueue#get()}: on request, parks one demand in the queue. Emits the item on the
 * thread that made it available (the subscribing thread if one is ready), or completes empty once
 * the queue is shut down and drained. A cancellation that loses the race with the hand-off gives
 * the item back to the queue, so no item is left in processing without a consumer.
 *
 * <p>A {@code request(n)} with {@code n <= 0} before the item was handed over cancels the demand and
 * signals an {@link IllegalArgumentException} (Reactive Streams rule 3.9) instead of only logging it
 * as Reactor's operators do: a subscriber that never validly requests would otherwise wait forever,
 * and the error tells it why. The same compare-and-set that decides a cancellation against the
 * hand-off decides it, so the subscriber gets either the item or the error, never both. After the
 * hand-off (or a cancellation) such a request is ignored, as any request after a terminal signal is.
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

    /** The subscription; {@link Scannable} with {@code RUN_STYLE} {@code ASYNC}: the item comes on the thread that made it ready. */
    static final class GetDemand<T> extends Demand<T> implements Subscription, Scannable {

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
            if (n <= 0) {
                int from = tryCancel();
                if (from == WAITING || from == CLAIMED) {
                    if (from == WAITING) {
                        queue.unpark(this);
                    }
                    actual.onError(Exceptions.nullOrNegativeRequestException(n));
                }
                return;
            }
            if (REQUESTED.compareAndSet(this, 0, 1)) {
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

        @Override
        public Object scanUnsafe(Attr key) {
            if (key == Attr.ACTUAL) {
                return actual;
            }
            if (key == Attr.CANCELLED) {
                return isCancelled();
            }
            if (key == Attr.TERMINATED) {
                return isDone();
            }
            if (key == Attr.REQUESTED_FROM_DOWNSTREAM) {
                // a Mono: one valid request is all the demand there is
                return (long) requested;
            }
            if (key == Attr.RUN_STYLE) {
                return Attr.RunStyle.ASYNC;
            }
            return null;
        }
    }
}
