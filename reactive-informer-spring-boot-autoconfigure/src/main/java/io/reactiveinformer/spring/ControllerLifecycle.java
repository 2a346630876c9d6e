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
import reactor.core.scheduler.Scheduler;

/**
 * Starts every {@link Controller} bean after the informers and shuts them down before them, each
 * with a bounded wait: a controller still draining after the timeout (a hung reconcile) is stopped at
 * once, so context close never waits on it for longer. Stopping is asynchronous: the context's
 * shutdown thread is not held.
 */
public final class ControllerLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ControllerLifecycle.class);

    private final List<Controller> controllers;
    private final Duration shutdownTimeout;
    private final Scheduler timer;
    private final Map<Controller, Disposable> running = new IdentityHashMap<>();

    public ControllerLifecycle(List<Controller> controllers, Duration shutdownTimeout, Scheduler timer) {
        this.controllers = List.copyOf(controllers);
        this.shutdownTimeout = shutdownTimeout;
        this.timer = timer;
    }

    @Override
    public synchronized void start() {
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
        }
        return Flux.fromIterable(stopping.entrySet())
                .flatMap(e -> e.getKey().shutdown()
                        .timeout(shutdownTimeout, timer)
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
    public int getPhase() {
        return InformerLifecycle.PHASE + 1;
    }
}
