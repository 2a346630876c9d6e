package io.reactiveinformer.controller;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * A reconciler that records its calls (request and scheduler time), how many run at once and whether a
 * request ever ran twice at once; its behaviour is a function, by default "done at once", or
 * {@link #controlled()}: each call waits until the test {@link #finish}es or {@link #fail}s it.
 */
final class Reconciles implements Reconciler {

    record Call(Request request, long millis) {
    }

    private final Scheduler clock;
    private final Map<Request, Deque<Sinks.One<Result>>> running = new HashMap<>();
    private final Set<Request> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicInteger active = new AtomicInteger();
    final List<Call> calls = new CopyOnWriteArrayList<>();
    final AtomicInteger maxActive = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();
    final AtomicInteger cancelled = new AtomicInteger();
    volatile Function<Request, Mono<Result>> behaviour = r -> Mono.just(Result.done());

    Reconciles(Scheduler clock) {
        this.clock = clock;
    }

    Reconciles controlled() {
        behaviour = r -> {
            Sinks.One<Result> sink = Sinks.one();
            synchronized (running) {
                running.computeIfAbsent(r, k -> new ArrayDeque<>()).add(sink);
            }
            return sink.asMono();
        };
        return this;
    }

    @Override
    public Mono<Result> reconcile(Request request) {
        calls.add(new Call(request, clock.now(TimeUnit.MILLISECONDS)));
        if (!inFlight.add(request)) {
            overlaps.incrementAndGet();
        }
        maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
        // released before the queue hears of the end, so the next reconcile of the request is no overlap
        return behaviour.apply(request)
                .doOnTerminate(() -> release(request))
                .doOnCancel(() -> {
                    cancelled.incrementAndGet();
                    release(request);
                });
    }

    private void release(Request request) {
        active.decrementAndGet();
        inFlight.remove(request);
    }

    void finish(String key, Result result) {
        next(key).tryEmitValue(result);
    }

    void fail(String key) {
        next(key).tryEmitError(new IllegalStateException("reconcile of " + key + " failed"));
    }

    private Sinks.One<Result> next(String key) {
        synchronized (running) {
            Deque<Sinks.One<Result>> sinks = running.get(Request.parse(key));
            if (sinks == null || sinks.isEmpty()) {
                throw new AssertionError("no reconcile of " + key + " is running");
            }
            return sinks.poll();
        }
    }

    List<String> keys() {
        return calls.stream().map(c -> c.request().key()).toList();
    }

    List<Long> times() {
        return calls.stream().map(Call::millis).toList();
    }

    int active() {
        return active.get();
    }
}
