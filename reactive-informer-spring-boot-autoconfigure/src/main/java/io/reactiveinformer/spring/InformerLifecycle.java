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
 * exist), optionally waits for them to sync, logs their outages ({@code InformerHealthLog}), and stops
 * them on close <em>before</em> the web server's
 * graceful shutdown: streams built on informer notifications complete then, so no open SSE stream holds
 * the shutdown for its whole timeout.
 *
 * <p>Phases: Boot starts the web server at {@code DEFAULT_PHASE - 2048} and shuts it down gracefully at
 * {@code DEFAULT_PHASE - 1024}; this runs at {@link #PHASE} (started after the server, stopped before
 * its graceful shutdown), controllers one above (started after the informers, stopped before them).
 *
 * <p>Informers stop for good, as client-go's do: their handlers complete and the beans that subscribed
 * at construction would not subscribe again. So this lifecycle is not {@linkplain #isPauseable()
 * pauseable}: a paused context (Spring's test context cache pauses the contexts it keeps between test
 * classes) keeps its informers running and their caches warm, as Boot's web server keeps its port. A
 * context that was {@linkplain org.springframework.context.ConfigurableApplicationContext#stop() stopped}
 * fails to start again, saying so, rather than report informers that do not run.
 */
public final class InformerLifecycle implements SmartLifecycle {

    /** Between the web server's graceful shutdown phase and the default phase. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    private static final Logger log = LoggerFactory.getLogger(InformerLifecycle.class);

    private final InformerRegistry registry;
    private final boolean waitForSync;
    private final Duration syncTimeout;
    private final List<Disposable> standalone = new ArrayList<>();
    private final List<Disposable> healthLogs = new ArrayList<>();
    private volatile boolean running;
    /** Guarded by this. */
    private boolean stopped;

    public InformerLifecycle(InformerRegistry registry, boolean waitForSync, Duration syncTimeout) {
        this.registry = registry;
        this.waitForSync = waitForSync;
        this.syncTimeout = syncTimeout;
    }

    @Override
    public synchronized void start() {
        if (stopped) {
            throw new IllegalStateException("the informers were stopped and cannot start again (informers stop for"
                    + " good, as client-go's do): close this application context and start a new one");
        }
        for (SharedIndexInformer<?> informer : registry.standalone()) {
            standalone.add(informer.start());
        }
        registry.factory().start();
        registry.informers().forEach(informer -> healthLogs.add(InformerHealthLog.follow(informer)));
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
        healthLogs.forEach(Disposable::dispose);
        healthLogs.clear();
        standalone.forEach(Disposable::dispose);
        standalone.clear();
        registry.factory().shutdown().block();
        running = false;
        stopped = true;
        log.info("stopped the informers");
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
