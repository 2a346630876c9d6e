package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.publisher.Sinks;

/**
 * One event handler of a {@link SharedIndexInformer} (client-go's {@code ResourceEventHandlerRegistration}),
 * created by {@link SharedIndexInformer#register}. Subscribing to {@link #notifications()} adds the
 * handler; cancelling that subscription removes it.
 *
 * @param <T> the object type
 */
public final class HandlerRegistration<T extends KubernetesObject> {

    private final SharedIndexInformer<T> informer;
    private final SubscriberOptions options;
    private final String name;
    private final Sinks.Empty<Void> synced = Sinks.empty();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final Notifications notifications = new Notifications();

    /** The informer's side of this handler once subscribed: written once, read only here. */
    private volatile Handler<T> handler;

    HandlerRegistration(SharedIndexInformer<T> informer, SubscriberOptions options, String name) {
        this.informer = informer;
        this.options = options;
        this.name = name;
    }

    /**
     * The handler's notifications. Single use: the first subscription adds the handler to the informer
     * and first receives the whole cache as {@link Notification.Added} flagged in-initial-list, then
     * every later change, with nothing lost or repeated between the two; a second subscription receives
     * an {@link IllegalStateException}.
     *
     * <p>Signals arrive on a worker of the informer's delivery scheduler, one at a time, as requested;
     * what the subscriber has not requested waits in this handler's buffer (see {@link BufferPolicy}).
     * The flux completes when the informer stops (after what is pending), signals an overflow error when
     * a {@link BufferPolicy#BOUNDED} buffer is full, and ends this handler when cancelled or when the
     * subscriber throws (logged with the informer's name). A {@code request(n)} with {@code n <= 0}
     * ends the handler with an {@link IllegalArgumentException} (Reactive Streams rule 3.9).
     *
     * <p>Each call goes through {@code Flux.onAssembly}, so assembly hooks and
     * {@code Hooks.onOperatorDebug()} see it.
     */
    public Flux<Notification<T>> notifications() {
        return notifications.assembled();
    }

    /**
     * Completes once the informer has synced and this handler has been handed every object of the
     * initial state (client-go's per-handler {@code HasSynced}). Fails with an
     * {@link InformerSyncException} while the informer cannot list (each subscription reflects the state
     * at that time: once listing succeeds, a new subscription completes), and with a
     * {@link CancellationException} when the handler ended before it synced. Until
     * {@link #notifications()} is subscribed the handler is not added, so this waits.
     */
    public Mono<Void> hasSynced() {
        return Mono.firstWithSignal(synced.asMono(), informer.syncFailure());
    }

    /** The handler's name, as logs and metrics show it. */
    public String name() {
        return name;
    }

    /** The resync period in effect: the requested one, possibly raised to the informer's check period. */
    public Duration resyncPeriod() {
        Handler<T> h = handler;
        return h == null ? options.resyncPeriod() : h.resyncPeriod;
    }

    public SubscriberOptions options() {
        return options;
    }

    /** Notifications waiting for the subscriber now (for {@link BufferPolicy#COALESCE}: keys). */
    public int bufferDepth() {
        Handler<T> h = handler;
        return h == null ? 0 : h.buffer.depth();
    }

    /** The largest {@link #bufferDepth()} seen so far. */
    public int maxBufferDepth() {
        Handler<T> h = handler;
        return h == null ? 0 : h.buffer.maxDepth();
    }

    /**
     * How long the oldest notification this handler has not received yet has waited in its buffer, on
     * the informer's clock; zero when it has everything. A handler that falls behind shows here long
     * before its buffer depth looks alarming.
     */
    public Duration lag() {
        Handler<T> h = handler;
        return h == null ? Duration.ZERO : Duration.ofNanos(h.lag());
    }

    void markSynced() {
        synced.tryEmitEmpty();
    }

    void ended(Throwable error) {
        synced.tryEmitError(new CancellationException(
                informer.name() + ": handler " + name + " ended before it synced"
                        + (error == null ? "" : ": " + error)));
    }

    private final class Notifications extends Flux<Notification<T>> {

        Flux<Notification<T>> assembled() {
            return onAssembly(this);
        }

        @Override
        public void subscribe(CoreSubscriber<? super Notification<T>> actual) {
            if (!subscribed.compareAndSet(false, true)) {
                Operators.error(actual, new IllegalStateException(
                        informer.name() + ": handler " + name + " has a subscriber already; register another handler"));
                return;
            }
            handler = informer.activate(HandlerRegistration.this, actual);
        }
    }
}
