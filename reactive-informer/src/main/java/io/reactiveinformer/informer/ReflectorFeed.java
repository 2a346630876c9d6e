package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.watch.ReflectorEvent;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * The reflector → FIFO leg of one informer: pushes each {@link ReflectorEvent} into the {@link DeltaFifo},
 * counts it in the metrics, and reports lists, events, bookmarks and failures to the {@link InformerState}.
 * Should the reflector's stream ever end, the informer cannot follow the server any more: it is stopped.
 *
 * <p><b>Threading.</b> Runs on the thread that emits the reflector's events (the lister-watcher's, or a
 * scheduler worker after a backoff), one event at a time; {@link #lastSyncResourceVersion()} is a volatile
 * read from any thread.
 */
final class ReflectorFeed<T extends KubernetesObject> {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    private final String name;
    private final DeltaFifo<T> fifo;
    private final InformerMetrics metrics;
    private final InformerState state;
    private volatile String lastSyncResourceVersion = "";

    ReflectorFeed(String name, DeltaFifo<T> fifo, InformerMetrics metrics, InformerState state) {
        this.name = name;
        this.fifo = fifo;
        this.metrics = metrics;
        this.state = state;
    }

    /** Feeds {@code events} into the FIFO; {@code stop} stops the informer should they fail or end. */
    Disposable start(Flux<ReflectorEvent<T>> events, Consumer<Throwable> stop) {
        return events.subscribe(this::accept, error -> {
            log.error("{}: the reflector failed; the informer stops (its cache no longer follows the server)", name, error);
            stop.accept(error);
        }, () -> {
            if (!state.isStopped()) {
                log.error("{}: the reflector ended; the informer stops (its cache no longer follows the server)", name);
                stop.accept(new IllegalStateException("the reflector's stream ended"));
            }
        });
    }

    /** The resourceVersion of the last list, watch event or bookmark received; {@code ""} before the first list. */
    String lastSyncResourceVersion() {
        return lastSyncResourceVersion;
    }

    private void accept(ReflectorEvent<T> event) {
        if (event instanceof ReflectorEvent.Listed<T> listed) {
            metrics.relisted(listed.items().size());
            state.listed(listed.shardFilteredLocally());
            fifo.replace(listed.items(), listed.resourceVersion(), listed.selection());
        } else if (event instanceof ReflectorEvent.Applied<T> applied) {
            metrics.event(applied.type());
            if (applied.type() == WatchEvent.Type.ADDED) {
                fifo.add(applied.object());
            } else {
                fifo.update(applied.object());
            }
        } else if (event instanceof ReflectorEvent.Deleted<T> deleted) {
            metrics.event(WatchEvent.Type.DELETED);
            fifo.delete(deleted.object());
        } else if (event instanceof ReflectorEvent.Bookmark<T> bookmark) {
            metrics.event(WatchEvent.Type.BOOKMARK);
            fifo.bookmark(bookmark.resourceVersion());
        } else {
            ReflectorEvent.Failed<T> failed = (ReflectorEvent.Failed<T>) event;
            metrics.restarted(failed.error());
            state.failed(failed.error(), failed.consecutiveFailures());
            return;
        }
        String resourceVersion = event.resourceVersion();
        if (resourceVersion != null && !resourceVersion.isEmpty()) {
            lastSyncResourceVersion = resourceVersion;
        }
        state.caughtUp();
    }
}
