package io.reactiveinformer.reliability;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SubscriberOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What one subscriber believes the cluster holds, built from its notifications alone.
 *
 * <p>Threading: notifications arrive on the informer's delivery threads; reads come from the runner.
 */
final class SubscriberView<T extends KubernetesObject> implements Consumer<Notification<T>> {

    final String name;
    private final Map<String, T> objects = new ConcurrentHashMap<>();

    SubscriberView(String name) {
        this.name = name;
    }

    @Override
    public void accept(Notification<T> notification) {
        if (notification instanceof Notification.Added<T> added) {
            objects.put(added.key(), added.object());
        } else if (notification instanceof Notification.Updated<T> updated) {
            objects.put(updated.key(), updated.newObject());
        } else if (notification instanceof Notification.Deleted<T> deleted) {
            objects.remove(deleted.key());
        }
    }

    /** Forgets everything: the subscriber starts over (a new subscription receives the whole cache again). */
    void clear() {
        objects.clear();
    }

    List<T> objects() {
        return List.copyOf(objects.values());
    }

    /**
     * Keeps this view following {@code informer} as an application's subscriber would. A slow one takes 2 ms
     * per notification without blocking a thread; {@code failsOn} makes the handler throw for the
     * notifications it accepts. A subscription that ends (the handler threw; a BOUNDED buffer overflowed, which
     * ends the subscriber by design) is counted in {@code recoveries} and resubscribed: the view starts over
     * from the informer's current state.
     */
    Disposable follow(SharedIndexInformer<T> informer, SubscriberOptions options, boolean slow,
                      Predicate<Notification<T>> failsOn, Map<String, AtomicLong> recoveries) {
        var notifications = Flux.defer(() -> {
            clear();
            return informer.notifications(options.withName(name));
        });
        if (slow) {
            notifications = notifications.concatMap(n -> Mono.delay(Duration.ofMillis(2)).thenReturn(n), 1);
        }
        return notifications
                .doOnNext(n -> {
                    accept(n);
                    if (failsOn.test(n)) {
                        throw new IllegalStateException("this handler fails on purpose");
                    }
                })
                .doOnError(e -> recoveries.computeIfAbsent(Exceptions.isOverflow(e) ? "BOUNDED buffer overflowed"
                        : "handler threw", k -> new AtomicLong()).incrementAndGet())
                .retry()
                .subscribe();
    }
}
