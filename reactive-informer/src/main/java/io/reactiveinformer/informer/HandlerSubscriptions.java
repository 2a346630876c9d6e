package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import java.util.function.LongSupplier;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;

/**
 * Turns the subscription to a {@link HandlerRegistration}'s notifications into a {@link Handler} of one
 * informer: gives it its {@link SubscriberBuffer} (drained on the delivery scheduler, or on the blocking
 * one for a {@link SubscriberOptions#blocking() blocking} handler), registers it with the metrics and
 * the resync schedule, and asks the {@link SharedProcessor} to join it at the seam.
 *
 * <p><b>Threading.</b> {@link #activate} runs on the subscribing thread (often a network event loop)
 * and does O(1) work there: it never reads the cache and never waits for the apply loop. The cache
 * reaches the subscriber later, from its own drain task.
 */
final class HandlerSubscriptions<T extends KubernetesObject> {

    private final String informer;
    private final Scheduler deliveryScheduler;
    private final Scheduler initialStateScheduler;
    private final Scheduler blockingScheduler;
    private final SharedProcessor<T> processor;
    private final ResyncSchedule<T> resync;
    private final UserCode userCode;
    private final InformerMetrics metrics;
    private final LongSupplier clock;

    HandlerSubscriptions(String informer, Scheduler deliveryScheduler, Scheduler initialStateScheduler,
                         Scheduler blockingScheduler,
                         SharedProcessor<T> processor, ResyncSchedule<T> resync, UserCode userCode,
                         InformerMetrics metrics, LongSupplier clock) {
        this.informer = informer;
        this.deliveryScheduler = deliveryScheduler;
        this.initialStateScheduler = initialStateScheduler;
        this.blockingScheduler = blockingScheduler;
        this.processor = processor;
        this.resync = resync;
        this.userCode = userCode;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** Adds a handler for {@code registration}, whose notifications {@code actual} subscribed to. */
    Handler<T> activate(HandlerRegistration<T> registration, CoreSubscriber<? super Notification<T>> actual) {
        boolean blocking = registration.options().blockingHandler();
        Handler<T> handler = new Handler<>(informer, registration, processor, userCode, clock,
                blocking ? blockingScheduler : deliveryScheduler, blocking ? blockingScheduler : initialStateScheduler,
                actual);
        handler.observedBy(metrics.subscriberAdded(registration.name(), handler.buffer::depth, handler::lag));
        try {
            actual.onSubscribe(handler.buffer);
        } catch (Throwable t) {
            Exceptions.throwIfFatal(t);
            handler.terminated(t);
            Operators.reportThrowInSubscribe(actual, t);
            return handler;
        }
        resync.join(handler);
        handler.buffer.start();
        processor.join(handler);
        return handler;
    }
}
