package io.reactiveinformer.e2e.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The test's own reads of a real server (the LISTs convergence compares with), retried a few times on
 * retriable failures: right after an apiserver restart a pooled connection may be dead, which says
 * nothing about the informer under test.
 */
final class RetryingReads<T extends KubernetesObject> implements ListerWatcher<T> {

    private final ListerWatcher<T> delegate;

    RetryingReads(ListerWatcher<T> delegate) {
        this.delegate = delegate;
    }

    @Override
    public Mono<ObjectList<T>> list(ListOptions options) {
        return delegate.list(options).retryWhen(retry());
    }

    @Override
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        return delegate.watch(options);
    }

    static Retry retry() {
        return Retry.backoff(8, Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(2))
                .filter(e -> e instanceof KubernetesClientException k && k.isRetriable());
    }
}
