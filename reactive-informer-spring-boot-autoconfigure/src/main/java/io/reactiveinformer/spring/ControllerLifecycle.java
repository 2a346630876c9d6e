package io.reactiveinformer.spring;

import io.reactiveinformer.controller.Controller;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Starts every {@link Controller} bean after the informers and shuts them down before them, each
 * with a bounded wait: a controller still draining after the timeout (a hung reconcile) is stopped at
 * once, so context close never waits on it for longer. Stopping is asynchronous: the context's
 * shutdown thread is not held.
 *
 * <p>The bound is kept on the wall clock ({@code Schedulers.parallel()}), whatever clock the controllers
 * and the starter's other timers run on: on a virtual clock nobody advances during close, it would never
 * end, and neither would Spring's inferred destroy method of a controller bean ({@link Controller#shutdown()},
 * which Spring awaits), which completes once the controller has stopped.
 *
 * <p>Like {@link InformerLifecycle}, and for the same reason (a controller stops for good), not
 * {@linkplain #isPauseable() pauseable}; a stopped context fails to start again.
 */
public final class ControllerLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ControllerLifecycle.class);

    private final List<Controller> controllers;
    private final Duration shutdownTimeout;
    private final Map<Controller, Disposable> running = new IdentityHashMap<>();
    /** Guarded by this. */
    private boolean stopped;

    public ControllerLifecycle(List<Controller> controllers, Duration shutdownTimeout) {
        this.controllers = List.copyOf(controllers);
        this.shutdownTimeout = shutdownTimeout;
    }

    @Override
    public synchronized void start() {
        if (stopped) {
            throw new IllegalStateException("the controllers were stopped and cannot start again: close this"
                    + " application context and start a new one");
        }
        for (Controller controller : controllers) {
            running.computeIfAbsent(controller, Controller::start);
        }
    }

    @Override
    public void stop() {
        stopAll().block();
    }

    @Override
    public void stop(Runnable callback) {
        stopAll().subscribe(null, e -> callback.run(), callback);
    }

    private Mono<Void> stopAll() {
        Map<Controller, Disposable> stopping;
        synchronized (this) {
            stopping = new IdentityHashMap<>(running);
            running.clear();
            stopped = true;
        }
        return Flux.fromIterable(stopping.entrySet())
                .flatMap(e -> e.getKey().shutdown()
                        .timeout(shutdownTimeout, Schedulers.parallel())
                        .onErrorResume(TimeoutException.class, timeout -> {
                            log.warn("{} did not drain within {}; stopping it at once", e.getKey(), shutdownTimeout);
                            e.getValue().dispose();
                            return Mono.empty();
                        }))
                .then();
    }

    @Override
    public synchronized boolean isRunning() {
        return !running.isEmpty();
    }

    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public int getPhase() {
        return InformerLifecycle.PHASE + 1;
    }
}
