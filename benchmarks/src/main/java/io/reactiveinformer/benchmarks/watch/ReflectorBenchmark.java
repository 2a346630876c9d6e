package io.reactiveinformer.benchmarks.watch;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.Reflector;
import io.reactiveinformer.watch.ReflectorEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The reflector's own cost per watch event (event conversion, resourceVersion tracking, the idle
 * watchdog's timestamp) and per listed object (gathering pages), against an in-memory ListerWatcher.
 *
 * <p>Each invocation is a fresh subscription to {@link Reflector#events()}. The in-memory source is
 * synchronous and the reflector moves to its scheduler only after a delay or an idle timeout, neither of
 * which happens here, so the whole run (list, watch, cancel by {@code take}) completes on the benchmark
 * thread inside {@code subscribe}: {@code blockLast}/{@code blockFirst} then return at once, without
 * parking, and measure work, not waiting. Per subscription the work includes one list and scheduling
 * and cancelling one idle timer on {@code Schedulers.parallel()}; the watch benchmark lists an empty page
 * so that listing does not count against its events.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ReflectorBenchmark {

    private static final int EVENTS = 10_000;
    private static final int PAGES = 20;
    private static final int PAGE_SIZE = 500;

    private Reflector<V1ConfigMap> lister;
    private Reflector<V1ConfigMap> watcher;

    @Setup
    public void setUp() {
        List<WatchEvent<V1ConfigMap>> events = new ArrayList<>(EVENTS);
        for (int i = 0; i < EVENTS; i++) {
            events.add(new WatchEvent<>(WatchEvent.Type.MODIFIED, configMap("cm-" + (i % 100), 1_000 + i)));
        }
        List<ObjectList<V1ConfigMap>> pages = new ArrayList<>(PAGES);
        for (int p = 0; p < PAGES; p++) {
            List<V1ConfigMap> items = new ArrayList<>(PAGE_SIZE);
            for (int i = 0; i < PAGE_SIZE; i++) {
                items.add(configMap("cm-" + (p * PAGE_SIZE + i), 10));
            }
            pages.add(new ObjectList<>(items, "10", p + 1 < PAGES ? Integer.toString(p + 1) : null, null));
        }
        lister = Reflector.builder(source(pages, List.of())).build();
        watcher = Reflector.builder(source(List.of(new ObjectList<>(List.of(), "10", null, null)), events)).build();
    }

    private static ListerWatcher<V1ConfigMap> source(List<ObjectList<V1ConfigMap>> pages,
                                                     List<WatchEvent<V1ConfigMap>> events) {
        return new ListerWatcher<>() {
            @Override
            public Mono<ObjectList<V1ConfigMap>> list(ListOptions options) {
                int page = options.continueToken() == null ? 0 : Integer.parseInt(options.continueToken());
                return Mono.just(pages.get(page));
            }

            @Override
            public Flux<WatchEvent<V1ConfigMap>> watch(WatchOptions options) {
                return Flux.fromIterable(events).concatWith(Flux.never());
            }
        };
    }

    private static V1ConfigMap configMap(String name, int resourceVersion) {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name(name)
                .resourceVersion(Integer.toString(resourceVersion)));
    }

    /** Per watch event (after listing one empty page). */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public ReflectorEvent<V1ConfigMap> watchEvent() {
        return watcher.events().skip(1).take(EVENTS).blockLast();
    }

    /** Per listed object: 20 pages of 500 gathered into one Listed. */
    @Benchmark
    @OperationsPerInvocation(PAGES * PAGE_SIZE)
    public ReflectorEvent<V1ConfigMap> listedObject() {
        return lister.events().blockFirst();
    }
}
