package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.workqueue.Priority;
import io.reactiveinformer.workqueue.WorkQueue;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One informer a controller watches, turning its notifications into requests: the predicate decides
 * whether a notification counts, the mapper which primaries it concerns. Initial-list adds and resyncs
 * enter the queue at {@link Priority#LOW}, so that live changes overtake the bulk of a (re)start.
 */
final class Source<T extends KubernetesObject> {

    private static final Logger log = LoggerFactory.getLogger(Source.class);

    final SharedIndexInformer<T> informer;
    private final KeyMapper<? super T> mapper;
    private final EventPredicate<? super T> predicate;

    Source(SharedIndexInformer<T> informer, KeyMapper<? super T> mapper, EventPredicate<? super T> predicate) {
        this.informer = informer;
        this.mapper = mapper;
        this.predicate = predicate;
    }

    /** Adds the requests {@code notification} maps to; a failing predicate or mapper only skips it. */
    void enqueue(Notification<T> notification, WorkQueue<Request> queue, String controller) {
        try {
            if (notification instanceof Notification.Added<T> added) {
                if (predicate.add(added.object())) {
                    addAll(queue, mapper.map(added.object()), added.inInitialList() ? Priority.LOW : Priority.NORMAL);
                }
            } else if (notification instanceof Notification.Updated<T> updated) {
                if (predicate.update(updated.oldObject(), updated.newObject())) {
                    Set<Request> requests = new LinkedHashSet<>(mapper.map(updated.oldObject()));
                    requests.addAll(mapper.map(updated.newObject()));
                    addAll(queue, requests, updated.isResync() ? Priority.LOW : Priority.NORMAL);
                }
            } else {
                Notification.Deleted<T> deleted = (Notification.Deleted<T>) notification;
                if (predicate.delete(deleted.lastState())) {
                    addAll(queue, mapper.map(deleted.lastState()), Priority.NORMAL);
                }
            }
        } catch (RuntimeException e) {
            log.error("{}: mapping {} of {} failed; skipped", controller, notification.getClass().getSimpleName(),
                    notification.key(), e);
        }
    }

    private static void addAll(WorkQueue<Request> queue, Collection<Request> requests, Priority priority) {
        for (Request request : requests) {
            queue.add(request, priority);
        }
    }
}
