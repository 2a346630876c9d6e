package io.reactiveinformer.spring;

import io.reactiveinformer.informer.InformerMetrics;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Keeps a registry free of per-connection series: an SSE stream or an unnamed handler is a subscriber
 * of its own, and a buffer-depth gauge per subscriber would add (and remove) a series per HTTP
 * connection. Their depths are not recorded; named subscribers' are, and every informer-level meter is.
 */
final class AggregateInformerMetrics implements InformerMetrics {

    private static final Runnable NOTHING = () -> {
    };

    private final InformerMetrics delegate;

    private AggregateInformerMetrics(InformerMetrics delegate) {
        this.delegate = delegate;
    }

    static Provider wrap(Provider provider) {
        return (name, gauges) -> new AggregateInformerMetrics(provider.register(name, gauges));
    }

    @Override
    public void event(io.reactiveinformer.api.WatchEvent.Type type) {
        delegate.event(type);
    }

    @Override
    public void relisted(int objects) {
        delegate.relisted(objects);
    }

    @Override
    public void restarted(io.reactiveinformer.api.KubernetesClientException error) {
        delegate.restarted(error);
    }

    @Override
    public Runnable subscriberAdded(String subscriber, IntSupplier bufferDepth, LongSupplier lagNanos) {
        if (subscriber.startsWith("sse-") || subscriber.startsWith("handler-")) {
            return NOTHING;
        }
        return delegate.subscriberAdded(subscriber, bufferDepth, lagNanos);
    }
}
