package io.reactiveinformer.informer;

import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.cache.ConcurrentIndexer;
import io.reactiveinformer.cache.Indexer;
import io.reactiveinformer.cache.ObjectKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random sequences of watch changes, relists, resyncs and partial drains: once everything is drained
 * and applied, the cache equals a plain map that saw the same changes, and handlers replaying the
 * notifications reach the same map without ever seeing an impossible transition.
 *
 * <p>A {@link Drain} of {@code n} lets the FIFO's drain loop (on virtual time, as {@link SteppedFifo}
 * wires it) apply up to {@code n} more entries before the following steps run: the steps after the
 * {@code n}-th entry run inside the consumer, as producers racing the loop do, and when the loop runs dry
 * first, the entries still allowed are applied as soon as the following steps push them.
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

    /** Runs the steps against the FIFO's drain loop, {@code perform} doing every step but the drains. */
    private static final class Script {

        private final Iterator<Step> steps;
        private final BiConsumer<DeltaFifo<V1Pod>, Step> perform;
        private SteppedFifo<V1Pod> driven;
        /** Entries the drain loop may still apply before the next steps run. */
        private long allowed;
        private boolean inLoop;

        Script(List<Step> steps, BiConsumer<DeltaFifo<V1Pod>, Step> perform) {
            this.steps = steps.iterator();
            this.perform = perform;
        }

        /** The consumer's part: counts the applied entry, and once the allowance is used up runs the next steps. */
        void applied() {
            if (--allowed == 0) {
                inLoop = true;
                runUntilDrain();
                inLoop = false;
            }
        }

        void run(SteppedFifo<V1Pod> fifo) {
            this.driven = fifo;
            while (runUntilDrain()) {
                fifo.drain();
            }
            allowed = Long.MAX_VALUE;
            fifo.drain();
        }

        /** Performs steps until a drain, which adds to the allowance; {@code false} once no step is left. */
        private boolean runUntilDrain() {
            while (steps.hasNext()) {
                Step step = steps.next();
                if (step instanceof Drain drain) {
                    allowed += drain.entries();
                    return true;
                }
                perform.accept(driven.fifo, step);
                if (!inLoop && allowed > 0) {
                    driven.drain();
                }
            }
            return false;
        }
    }

    private static final List<String> KEYS = List.of("a/p0", "a/p1", "a/p2", "b/p0", "b/p1", "b/p2", "c/p0");

    @Property(tries = 400)
    void drainedAndAppliedFifoLeavesCacheEqualToModel(@ForAll("steps") List<Step> steps) {
        ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
        DeltaApplier<V1Pod> applier = new DeltaApplier<>(cache);
        List<Notification<V1Pod>> notifications = new ArrayList<>();
        Map<String, V1Pod> model = new HashMap<>();
        int[] version = {0};
        Script script = new Script(steps, (fifo, step) -> {
            String rv = String.valueOf(++version[0]);
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
                fifo.replace(new ArrayList<>(listed.values()), rv, 1);
                model.clear();
                model.putAll(listed);
            } else {
                fifo.resync();
            }
        });
        SteppedFifo<V1Pod> fifo = new SteppedFifo<>(cache, UnaryOperator.identity(), (producer, entry) -> {
            notifications.addAll(applier.apply(entry));
            script.applied();
        });
        script.run(fifo);

        assertThat(fifo.failures).isEmpty();
        Map<String, V1Pod> cached = cache.list().stream().collect(Collectors.toMap(ObjectKeys::keyOf, p -> p));
        assertThat(cached).isEqualTo(model);
        assertThat(DeltaFifoConcurrencyTest.replay(notifications)).isEqualTo(model);
        for (String namespace : List.of("a", "b", "c")) {
            assertThat(cache.indexKeys(Indexer.NAMESPACE_INDEX, namespace)).containsExactlyInAnyOrderElementsOf(
                    model.keySet().stream().filter(k -> k.startsWith(namespace + "/")).toList());
        }
        assertThat(cache.indexValues(Indexer.NAMESPACE_INDEX))
                .containsExactlyInAnyOrderElementsOf(model.keySet().stream().map(ObjectKeys::namespaceOf).distinct().toList());
        List<FifoEntry.Replace<V1Pod>> initial = fifo.entries.stream()
                .filter(e -> e instanceof FifoEntry.Replace<V1Pod> r && r.initial()).map(e -> (FifoEntry.Replace<V1Pod>) e).toList();
        Step firstChange = steps.stream().filter(s -> !(s instanceof Resync || s instanceof Drain)).findFirst().orElse(null);
        assertThat(initial).as("a relist is initial exactly when the first change was one")
                .hasSize(firstChange instanceof Replace ? 1 : 0);
        if (!initial.isEmpty()) {
            assertThat(fifo.entries).as("nothing before the initial relist").first().isSameAs(initial.get(0));
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
        DeltaApplier<V1Pod> applier = new DeltaApplier<>(cache);

        // per key, each change as {version, the resourceVersion of the state after it, or 0 for absent}
        Map<String, List<long[]>> history = new HashMap<>();
        KEYS.forEach(key -> history.put(key, new ArrayList<>(List.of(new long[] {0, 0}))));
        Map<String, V1Pod> model = new HashMap<>();
        long[] versions = {0, 0}; // the last version used, the last one pushed
        Script script = new Script(steps, (fifo, step) -> {
            long version = ++versions[0];
            String rv = String.valueOf(version);
            if (step instanceof Add || step instanceof Update) {
                String key = step instanceof Add a ? a.key() : ((Update) step).key();
                V1Pod pod = podFor(key, rv);
                if (step instanceof Add) {
                    fifo.add(pod);
                } else {
                    fifo.update(pod);
                }
                model.put(key, pod);
                history.get(key).add(new long[] {version, version});
                versions[1] = version;
            } else if (step instanceof Delete delete) {
                fifo.delete(podFor(delete.key(), rv));
                model.remove(delete.key());
                history.get(delete.key()).add(new long[] {version, 0});
                versions[1] = version;
            } else if (step instanceof Replace replace) {
                Map<String, V1Pod> listed = new LinkedHashMap<>();
                replace.keys().forEach(key -> listed.put(key,
                        model.containsKey(key) && key.hashCode() % 2 == 0 ? model.get(key) : podFor(key, rv)));
                fifo.replace(new ArrayList<>(listed.values()), rv, 1);
                model.clear();
                model.putAll(listed);
                for (String key : KEYS) {
                    V1Pod state = listed.get(key);
                    history.get(key).add(new long[] {version,
                            state == null ? 0 : Long.parseLong(state.getMetadata().getResourceVersion())});
                }
                versions[1] = version;
            } else {
                fifo.resync();
            }
            assertCacheReached(fifo.storeVersion().current(), cache, history);
        });
        SteppedFifo<V1Pod> fifo = new SteppedFifo<>(cache, UnaryOperator.identity(), (producer, entry) -> {
            applier.apply(entry);
            assertCacheReached(producer.storeVersion().current(), cache, history);
            script.applied();
        });
        script.run(fifo);

        assertThat(fifo.failures).isEmpty();
        assertCacheReached(fifo.fifo.storeVersion().current(), cache, history);
        assertThat(fifo.fifo.storeVersion().current()).isEqualTo(versions[1] == 0 ? "" : String.valueOf(versions[1]));
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
