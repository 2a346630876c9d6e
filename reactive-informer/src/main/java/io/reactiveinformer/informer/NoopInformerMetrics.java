package io.reactiveinformer.informer;

import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.WatchEvent;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/** Records nothing. */
final class NoopInformerMetrics implements InformerMetrics {

    static final InformerMetrics INSTANCE = new NoopInformerMetrics();
    static final Provider PROVIDER = (name, gauges) -> INSTANCE;
    private static final Runnable NOTHING = () -> { };

    private NoopInformerMetrics() {
    }

    @Override
    public void event(WatchEvent.Type type) {
    }

    @Override
    public void relisted(int objects) {
    }

    @Override
    public void restarted(KubernetesClientException error) {
    }

    @Override
    public Runnable subscriberAdded(String subscriber, IntSupplier bufferDepth, LongSupplier lagNanos) {
        return NOTHING;
    }
}
