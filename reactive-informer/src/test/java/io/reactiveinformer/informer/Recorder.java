package io.reactiveinformer.informer;

import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Keeps what a handler was told, and the map of objects it implies. Thread-safe. */
final class Recorder implements Consumer<Notification<V1Pod>> {

    private final List<Notification<V1Pod>> received = new ArrayList<>();
    private final Map<String, V1Pod> view = new HashMap<>();

    @Override
    public synchronized void accept(Notification<V1Pod> n) {
        received.add(n);
        if (n instanceof Notification.Added<V1Pod> a) {
            view.put(a.key(), a.object());
        } else if (n instanceof Notification.Updated<V1Pod> u) {
            view.put(u.key(), u.newObject());
        } else {
            view.remove(n.key());
        }
        notifyAll();
    }

    /** Waits (on a test thread) until at least {@code count} notifications arrived; false after 30 s. */
    synchronized boolean awaitCount(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (received.size() < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    synchronized List<Notification<V1Pod>> received() {
        return new ArrayList<>(received);
    }

    synchronized int count() {
        return received.size();
    }

    /** key → label value, the handler's reconstruction of the cache. */
    synchronized Map<String, String> view() {
        Map<String, String> values = new HashMap<>();
        view.forEach((k, v) -> values.put(k, FakePodServer.valueOf(v)));
        return values;
    }

    /** Only the keys, for any object type. */
    static final class Any<T extends io.kubernetes.client.common.KubernetesObject> implements Consumer<Notification<T>> {
        private final List<String> keys = new ArrayList<>();

        @Override
        public synchronized void accept(Notification<T> n) {
            keys.add(n.key());
        }

        synchronized List<String> keys() {
            return new ArrayList<>(keys);
        }
    }

    static Map<String, String> values(Map<String, V1Pod> pods) {
        Map<String, String> values = new HashMap<>();
        pods.forEach((k, v) -> values.put(k, FakePodServer.valueOf(v)));
        return values;
    }
}
