package io.reactiveinformer.spring;

import io.reactiveinformer.informer.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationContextException;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;

/**
 * Starts every informer once the context has refreshed its beans (so informers declared as beans
 * exist), optionally waits for them to sync, and stops them on close <em>before</em> the web server's
 * graceful shutdown: streams built on informer notifications complete then, so no open SSE stream holds
 * the shutdown for its whole timeout.
 *
 * <p>Phases: Boot starts the web server at {@code DEFAULT_PHASE - 2048} and shuts it down gracefully at
 * {@code DEFAULT_PHASE - 1024}; this runs at {@link #PHASE} (started after the server, stopped before
 * its graceful shutdown), controllers one above (started after the informers, stopped before them).
 */
public final class InformerLifecycle implements SmartLifecycle {

    /** Between the web server's graceful shutdown phase and the default phase. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    private static final Logger log = LoggerFactory.getLogger(InformerLifecycle.class);

    private final InformerRegistry registry;
    private final boolean waitForSync;
    private final Duration syncTimeout;
    private final List<Disposable> standalone = new ArrayList<>();
    private volatile boolean running;

    public InformerLifecycle(InformerRegistry registry, boolean waitForSync, Duration syncTimeout) {
        this.registry = registry;
        this.waitForSync = waitForSync;
        this.syncTimeout = syncTimeout;
    }

    @Override
    public synchronized void start() {
        for (SharedIndexInformer<?> informer : registry.standalone()) {
            standalone.add(informer.start());
        }
        registry.factory().start();
        running = true;
        log.info("started {} informers", registry.informers().size());
        if (waitForSync) {
            try {
                // the context's start runs on the thread that refreshes it, never an event loop
                registry.factory().waitForCacheSync()
                        .then(reactor.core.publisher.Mono.when(registry.standalone().stream()
                                .map(SharedIndexInformer::hasSynced).toList()))
                        .block(syncTimeout);
            } catch (RuntimeException e) {
                throw new ApplicationContextException("informers did not sync within " + syncTimeout, e);
            }
        }
    }

    @Override
    public synchronized void stop() {
        standalone.forEach(Disposable::dispose);
        standalone.clear();
        registry.factory().shutdown().block();
        running = false;
        log.info("stopped the informers");
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
