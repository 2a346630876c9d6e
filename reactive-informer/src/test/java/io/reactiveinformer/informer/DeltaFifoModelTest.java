package io.reactiveinformer.informer;

import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.cache.ConcurrentIndexer;
import io.reactiveinformer.cache.Indexer;
import io.reactiveinformer.cache.ObjectKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import reactor.test.subscriber.TestSubscriber;

/**
 * Random sequences of watch changes, relists, resyncs and partial drains: once everything is drained
 * and applied, the cache equals a plain map that saw the same changes, and handlers replaying the
 * notifications reach the same map without ever seeing an impossible transition.
 */
class DeltaFifoModelTest {

    sealed interface Step {
    }

    record Add(String key) implements Step {
    }

    record Update(String key) implements Step {
    }

    record Delete(String key) implements Step {
    }

    record Replace(Set<String> keys) implements Step {
    }

    record Resync() implements Step {
    }

    record Drain(int entries) implements Step {
    }

    private static final List<String> KEYS = List.of("a/p0", "a/p1", "a/p2", "b/p0", "b/p1", "b/p2", "c/p0");

    @Property(tries = 400)
    void drainedAndAppliedFifoLeavesCacheEqualToModel(@ForAll("steps") List<Step> steps) {
        ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
        DeltaFifo<V1Pod> fifo = new DeltaFifo<>(cache);
        DeltaApplier<V1Pod> applier = new DeltaApplier<>(cache);
        TestSubscriber<List<Notification<V1Pod>>> handler = TestSubscriber.builder().initialRequest(0).build();
        fifo.entries().map(applier::apply).subscribe(handler);

        Map<String, V1Pod> model = new HashMap<>();
        int version = 0;
        boolean replaced = false;
        for (Step step : steps) {
            String rv = String.valueOf(++version);
            if (step instanceof Add add) {
                V1Pod pod = podFor(add.key(), rv);
                fifo.add(pod);
                model.put(add.key(), pod);
            } else if (step instanceof Update update) {
                V1Pod pod = podFor(update.key(), rv);
                fifo.update(pod);
                model.put(update.key(), pod);
            } else if (step instanceof Delete delete) {
                fifo.delete(podFor(delete.key(), rv));
                model.remove(delete.key());
            } else if (step instanceof Replace replace) {
                Map<String, V1Pod> listed = new LinkedHashMap<>();
                // some objects keep their version across the relist, as unchanged objects do
                replace.keys().forEach(key -> listed.put(key,
                        model.containsKey(key) && key.hashCode() % 2 == 0 ? model.get(key) : podFor(key, rv)));
                fifo.replace(new ArrayList<>(listed.values()), rv);
                model.clear();
                model.putAll(listed);
                replaced = true;
            } else if (step instanceof Resync) {
                fifo.resync();
            } else {
                handler.request(((Drain) step).entries());
            }
        }
        fifo.close();
        handler.request(Long.MAX_VALUE);

        assertThat(handler.isTerminatedComplete()).isTrue();
        Map<String, V1Pod> cached = cache.list().stream().collect(Collectors.toMap(ObjectKeys::keyOf, p -> p));
        assertThat(cached).isEqualTo(model);
        List<Notification<V1Pod>> notifications = handler.getReceivedOnNext().stream().flatMap(List::stream).toList();
        assertThat(DeltaFifoConcurrencyTest.replay(notifications)).isEqualTo(model);
        for (String namespace : List.of("a", "b", "c")) {
            assertThat(cache.indexKeys(Indexer.NAMESPACE_INDEX, namespace)).containsExactlyInAnyOrderElementsOf(
                    model.keySet().stream().filter(k -> k.startsWith(namespace + "/")).toList());
        }
        assertThat(cache.indexValues(Indexer.NAMESPACE_INDEX))
                .containsExactlyInAnyOrderElementsOf(model.keySet().stream().map(ObjectKeys::namespaceOf).distinct().toList());
        if (replaced) {
            assertThat(fifo.hasSynced()).isTrue();
        }
    }

    /**
     * After every step, the FIFO's store version never claims more than the cache holds: for each key, the
     * cache's state is the one the key had at that version or a later one (coalescing may bring a key ahead,
     * never behind). Once everything is drained, it is the version of the last change pushed.
     */
    @Property(tries = 400)
    void theStoreVersionNeverRunsAheadOfTheCache(@ForAll("steps") List<Step> steps) {
        ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
        DeltaFifo<V1Pod> fifo = new DeltaFifo<>(cache);
        DeltaApplier<V1Pod> applier = new DeltaApplier<>(cache);
        TestSubscriber<List<Notification<V1Pod>>> handler = TestSubscriber.builder().initialRequest(0).build();
        fifo.entries().map(applier::apply).subscribe(handler);

        // per key, each change as {version, the resourceVersion of the state after it, or 0 for absent}
        Map<String, List<long[]>> history = new HashMap<>();
        KEYS.forEach(key -> history.put(key, new ArrayList<>(List.of(new long[] {0, 0}))));
        Map<String, V1Pod> model = new HashMap<>();
        long version = 0;
        long lastPushed = 0;
        for (Step step : steps) {
            String rv = String.valueOf(++version);
            if (step instanceof Add add || step instanceof Update) {
                String key = step instanceof Add a ? a.key() : ((Update) step).key();
                V1Pod pod = podFor(key, rv);
                if (step instanceof Add) {
                    fifo.add(pod);
                } else {
                    fifo.update(pod);
                }
                model.put(key, pod);
                history.get(key).add(new long[] {version, version});
                lastPushed = version;
            } else if (step instanceof Delete delete) {
                fifo.delete(podFor(delete.key(), rv));
                model.remove(delete.key());
                history.get(delete.key()).add(new long[] {version, 0});
                lastPushed = version;
            } else if (step instanceof Replace replace) {
                Map<String, V1Pod> listed = new LinkedHashMap<>();
                replace.keys().forEach(key -> listed.put(key,
                        model.containsKey(key) && key.hashCode() % 2 == 0 ? model.get(key) : podFor(key, rv)));
                fifo.replace(new ArrayList<>(listed.values()), rv);
                model.clear();
                model.putAll(listed);
                for (String key : KEYS) {
                    V1Pod state = listed.get(key);
                    history.get(key).add(new long[] {version,
                            state == null ? 0 : Long.parseLong(state.getMetadata().getResourceVersion())});
                }
                lastPushed = version;
            } else if (step instanceof Resync) {
                fifo.resync();
            } else {
                handler.request(((Drain) step).entries());
            }
            assertCacheReached(fifo.storeVersion().current(), cache, history);
        }
        handler.request(Long.MAX_VALUE);

        assertCacheReached(fifo.storeVersion().current(), cache, history);
        assertThat(fifo.storeVersion().current()).isEqualTo(lastPushed == 0 ? "" : String.valueOf(lastPushed));
    }

    private static void assertCacheReached(String storeVersion, ConcurrentIndexer<V1Pod> cache,
                                           Map<String, List<long[]>> history) {
        long reached = storeVersion.isEmpty() ? 0 : Long.parseLong(storeVersion);
        history.forEach((key, changes) -> {
            long cached = cache.getByKey(key).map(p -> Long.parseLong(p.getMetadata().getResourceVersion())).orElse(0L);
            int last = 0;
            for (int i = 0; i < changes.size() && changes.get(i)[0] <= reached; i++) {
                last = i;
            }
            List<Long> allowed = changes.subList(last, changes.size()).stream().map(c -> c[1]).toList();
            assertThat(allowed).as("%s at store version %s", key, storeVersion).contains(cached);
        });
    }

    private static V1Pod podFor(String key, String rv) {
        return pod(ObjectKeys.namespaceOf(key), ObjectKeys.nameOf(key), rv);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                Tuple.of(5, key.map(Add::new)),
                Tuple.of(6, key.map(Update::new)),
                Tuple.of(4, key.map(Delete::new)),
                Tuple.of(1, key.set().ofMaxSize(KEYS.size()).map(Replace::new)),
                Tuple.of(1, Arbitraries.just(new Resync())),
                Tuple.of(3, Arbitraries.integers().between(1, 3).map(Drain::new)));
        return step.list().ofMaxSize(60);
    }
}
