package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.informer.HandlerRegistration;
import io.reactiveinformer.informer.InformerSyncException;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.workqueue.WorkQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.retry.Retry;

/**
 * The informers a controller watches, the primary's {@link Source} first, and their wiring to its
 * queue: a handler registered with each informer, whose notifications (on the informer's delivery
 * thread) only add requests to the queue, and the wait for all of them to sync.
 */
final class Sources {

    /** The controller's logger: these lines are the controller's. */
    private static final Logger log = LoggerFactory.getLogger(Controller.class);

    private final List<Source<?>> sources;

    private Sources(List<Source<?>> sources) {
        this.sources = sources;
    }

    /**
     * The primary's objects, as notified when all of {@code predicates} pass (always without any), each a
     * request for itself; then the {@code secondaries}.
     */
    static <T extends KubernetesObject> Sources of(SharedIndexInformer<T> primary,
                                                   List<EventPredicate<? super T>> predicates,
                                                   List<Source<?>> secondaries) {
        List<Source<?>> sources = new ArrayList<>(secondaries.size() + 1);
        EventPredicate<T> predicate = allOf(List.<EventPredicate<? super T>>copyOf(predicates));
        sources.add(new Source<T>(primary, object -> List.of(Request.of(object)), predicate));
        sources.addAll(secondaries);
        return new Sources(List.copyOf(sources));
    }

    private static <T extends KubernetesObject> EventPredicate<T> allOf(List<EventPredicate<? super T>> predicates) {
        if (predicates.isEmpty()) {
            return EventPredicate.always();
        }
        return EventPredicate.of(o -> predicates.stream().allMatch(p -> p.add(o)),
                (o, n) -> predicates.stream().allMatch(p -> p.update(o, n)),
                o -> predicates.stream().allMatch(p -> p.delete(o)));
    }

    SharedIndexInformer<?> primary() {
        return sources.get(0).informer;
    }

    /**
     * Registers {@code controller}'s handler with every informer, adding each handler's subscription to
     * {@code watching}. Returns the wait for all of them to sync: an informer that cannot sync
     * ({@link InformerSyncException}) is logged and waited for again with backoff on {@code scheduler},
     * unless one of the informers stopped.
     */
    Mono<Void> watch(String controller, WorkQueue<Request> queue, Disposable.Composite watching, Scheduler scheduler) {
        List<Mono<Void>> syncs = new ArrayList<>(sources.size());
        for (Source<?> source : sources) {
            syncs.add(watch(source, controller, queue, watching));
        }
        return Mono.when(syncs)
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofSeconds(1))
                        .maxBackoff(Duration.ofMinutes(1))
                        .scheduler(scheduler)
                        .filter(e -> e instanceof InformerSyncException && sources.stream().noneMatch(
                                s -> s.informer.isStopped()))
                        .doBeforeRetry(signal -> log.error("{}: informers not synced, waiting again: {}", controller,
                                signal.failure().getMessage())));
    }

    private static <T extends KubernetesObject> Mono<Void> watch(Source<T> source, String controller,
                                                                 WorkQueue<Request> queue,
                                                                 Disposable.Composite watching) {
        HandlerRegistration<T> registration =
                source.informer.register(SubscriberOptions.defaults().withName(controller));
        watching.add(registration.notifications().subscribe(
                notification -> source.enqueue(notification, queue, controller),
                e -> log.error("{}: no longer notified by {}", controller, source.informer.name(), e),
                () -> log.debug("{}: {} stopped notifying", controller, source.informer.name())));
        return registration.hasSynced();
    }

    /** Starts the informers not started yet. */
    void startInformers() {
        for (Source<?> source : sources) {
            if (!source.informer.isStarted()) {
                source.informer.start();
            }
        }
    }
}
