package io.reactiveinformer.cache;

import static io.reactiveinformer.cache.TestPods.byNode;
import static io.reactiveinformer.cache.TestPods.pod;
import static io.reactiveinformer.cache.TestPods.scheduled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ConcurrentIndexerTest {

    private final ConcurrentIndexer<V1Pod> indexer = new ConcurrentIndexer<>();

    @Test
    void putGetListDelete() {
        V1Pod a = pod("ns", "a", "1");
        V1Pod b = pod("ns", "b", "1");

        assertThat(indexer.put(a)).isEmpty();
        assertThat(indexer.put(b)).isEmpty();

        assertThat(indexer.getByKey("ns/a")).containsSame(a);
        assertThat(indexer.get(pod("ns", "b", "9"))).containsSame(b);
        assertThat(indexer.containsKey("ns/a")).isTrue();
        assertThat(indexer.list()).containsExactlyInAnyOrder(a, b);
        assertThat(indexer.listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
        assertThat(indexer.size()).isEqualTo(2);

        V1Pod a2 = pod("ns", "a", "2");
        assertThat(indexer.put(a2)).containsSame(a);
        assertThat(indexer.getByKey("ns/a")).containsSame(a2);

        assertThat(indexer.delete("ns/a")).containsSame(a2);
        assertThat(indexer.delete("ns/a")).isEmpty();
        assertThat(indexer.getByKey("ns/a")).isEmpty();
        assertThat(indexer.listKeys()).containsExactly("ns/b");
    }

    @Test
    void putUnderAKeyAlreadyComputedIndexesAsPutDoes() {
        V1Pod a = pod("ns", "a", "1");
        V1Pod a2 = pod("ns", "a", "2");

        assertThat(indexer.put("ns/a", a)).isEmpty();
        assertThat(indexer.put("ns/a", a2)).containsSame(a);
        assertThat(indexer.getByKey("ns/a")).containsSame(a2);
        assertThat(indexer.byIndex(Indexer.NAMESPACE_INDEX, "ns")).containsExactly(a2);
    }

    @Test
    void namespaceIndexIsBuiltIn() {
        indexer.put(pod("a", "p1", "1"));
        indexer.put(pod("a", "p2", "1"));
        indexer.put(pod("b", "p1", "1"));
        indexer.put(pod(null, "cluster-wide", "1"));

        assertThat(indexer.indexNames()).containsExactly(Indexer.NAMESPACE_INDEX);
        assertThat(indexer.indexKeys(Indexer.NAMESPACE_INDEX, "a")).containsExactlyInAnyOrder("a/p1", "a/p2");
        assertThat(indexer.byIndex(Indexer.NAMESPACE_INDEX, "b")).extracting(p -> p.getMetadata().getName())
                .containsExactly("p1");
        assertThat(indexer.indexValues(Indexer.NAMESPACE_INDEX)).containsExactlyInAnyOrder("a", "b");
        assertThat(indexer.byIndex(Indexer.NAMESPACE_INDEX, "nope")).isEmpty();
    }

    @Test
    void unknownIndexIsAnError() {
        assertThatThrownBy(() -> indexer.byIndex("byNode", "n1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("byNode");
        assertThatThrownBy(() -> indexer.indexKeys("byNode", "n1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> indexer.indexValues("byNode")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> indexer.index("byNode", pod("a", "b", "1"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void indexerAddedAfterDataIndexesExistingItems() {
        indexer.put(scheduled("ns", "a", "1", "n1"));
        indexer.put(scheduled("ns", "b", "1", "n2"));
        indexer.put(scheduled("ns", "c", "1", "n1"));

        indexer.addIndexers(Map.of("byNode", byNode()));

        assertThat(indexer.indexKeys("byNode", "n1")).containsExactlyInAnyOrder("ns/a", "ns/c");
        assertThat(indexer.indexValues("byNode")).containsExactlyInAnyOrder("n1", "n2");

        indexer.put(scheduled("ns", "d", "1", "n2"));
        assertThat(indexer.indexKeys("byNode", "n2")).containsExactlyInAnyOrder("ns/b", "ns/d");
    }

    @Test
    void duplicateIndexNameIsRejected() {
        assertThatThrownBy(() -> indexer.addIndexers(Map.of(Indexer.NAMESPACE_INDEX, byNode())))
                .isInstanceOf(IllegalArgumentException.class);
        indexer.addIndexers(Map.of("byNode", byNode()));
        assertThatThrownBy(() -> indexer.addIndexers(Map.of("byNode", byNode())))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void updateMovesKeyBetweenValuesAndDropsEmptySets() {
        indexer.addIndexers(Map.of("byNode", byNode()));
        indexer.put(scheduled("ns", "a", "1", null));
        assertThat(indexer.indexValues("byNode")).isEmpty();

        indexer.put(scheduled("ns", "a", "2", "n1"));
        assertThat(indexer.indexKeys("byNode", "n1")).containsExactly("ns/a");

        indexer.put(scheduled("ns", "a", "3", "n2"));
        assertThat(indexer.indexKeys("byNode", "n1")).isEmpty();
        assertThat(indexer.indexKeys("byNode", "n2")).containsExactly("ns/a");
        assertThat(indexer.indexValues("byNode")).containsExactly("n2");

        indexer.delete("ns/a");
        assertThat(indexer.indexValues("byNode")).isEmpty();
        assertThat(indexer.indexValues(Indexer.NAMESPACE_INDEX)).isEmpty();
    }

    @Test
    void updateWithSameSingleValueKeepsTheKeyIndexed() {
        List<String> seen = new ArrayList<>();
        indexer.addIndexers(Map.of("byNode", pod -> {
            seen.add(pod.getMetadata().getResourceVersion());
            return byNode().values(pod);
        }));
        indexer.put(scheduled("ns", "a", "1", "n1"));
        indexer.put(scheduled("ns", "a", "2", "n1"));

        assertThat(indexer.indexKeys("byNode", "n1")).containsExactly("ns/a");
        assertThat(seen).containsExactly("1", "2", "1");
    }

    @Test
    void multiValuedIndex() {
        indexer.addIndexers(Map.of("byLabelValue", pod -> new ArrayList<>(pod.getMetadata().getLabels().values())));
        V1Pod a = pod("ns", "a", "1", Map.of("x", "red", "y", "blue"));
        V1Pod b = pod("ns", "b", "1", Map.of("x", "blue"));
        V1Pod c = pod("ns", "c", "1", Map.of("x", "green"));
        indexer.put(a);
        indexer.put(b);
        indexer.put(c);

        assertThat(indexer.indexKeys("byLabelValue", "blue")).containsExactlyInAnyOrder("ns/a", "ns/b");
        assertThat(indexer.index("byLabelValue", pod("x", "probe", "1", Map.of("a", "red", "b", "green"))))
                .containsExactlyInAnyOrder(a, c);
        assertThat(indexer.index("byLabelValue", a)).containsExactlyInAnyOrder(a, b);
        assertThat(indexer.index("byLabelValue", pod("x", "probe", "1", Map.of("a", "green")))).containsExactly(c);

        indexer.put(pod("ns", "a", "2", Map.of("x", "green", "y", "blue")));
        assertThat(indexer.indexKeys("byLabelValue", "red")).isEmpty();
        assertThat(indexer.indexKeys("byLabelValue", "blue")).containsExactlyInAnyOrder("ns/a", "ns/b");
        assertThat(indexer.indexKeys("byLabelValue", "green")).containsExactlyInAnyOrder("ns/a", "ns/c");
        assertThat(indexer.indexValues("byLabelValue")).containsExactlyInAnyOrder("blue", "green");
    }

    @Test
    void throwingIndexFunctionCachesTheObjectWithoutThatIndexAndReportsIt() {
        List<String> failures = new ArrayList<>();
        ConcurrentIndexer<V1Pod> reporting = new ConcurrentIndexer<>(Map.of("picky", pod -> {
            if ("bad".equals(pod.getMetadata().getResourceVersion())) {
                throw new IllegalStateException("boom");
            }
            return "null".equals(pod.getMetadata().getResourceVersion()) ? null : List.of(pod.getMetadata().getResourceVersion());
        }), (index, key, error) -> failures.add(index + " " + key + " " + error.getMessage()));
        reporting.put(pod("ns", "a", "1"));
        V1Pod badA = pod("ns", "a", "bad");
        V1Pod badB = pod("ns", "b", "bad");
        V1Pod nullC = pod("ns", "c", "null");

        reporting.put(badA);
        reporting.put(badB);
        reporting.put(nullC);

        assertThat(reporting.list()).containsExactlyInAnyOrder(badA, badB, nullC);
        assertThat(reporting.indexValues("picky")).isEmpty();
        assertThat(reporting.indexKeys(Indexer.NAMESPACE_INDEX, "ns")).containsExactlyInAnyOrder("ns/a", "ns/b", "ns/c");
        assertThat(failures).containsExactly("picky ns/a boom", "picky ns/b boom",
                "picky ns/c index function 'picky' returned null");

        reporting.replaceAll(Map.of("ns/b", badB, "ns/d", pod("ns", "d", "2")));
        assertThat(reporting.indexKeys("picky", "2")).containsExactly("ns/d");
        assertThat(reporting.size()).isEqualTo(2);
        assertThat(failures).hasSize(4).last().isEqualTo("picky ns/b boom");
    }

    @Test
    void replaceAllSwapsContentAndIndicesAndReturnsPrevious() {
        indexer.addIndexers(Map.of("byNode", byNode()));
        V1Pod a = scheduled("ns", "a", "1", "n1");
        V1Pod b = scheduled("ns", "b", "1", "n1");
        indexer.put(a);
        indexer.put(b);

        Map<String, V1Pod> items = new LinkedHashMap<>();
        V1Pod b2 = scheduled("ns", "b", "2", "n2");
        V1Pod c = scheduled("other", "c", "1", "n2");
        items.put("ns/b", b2);
        items.put("other/c", c);
        Map<String, V1Pod> previous = indexer.replaceAll(items);

        assertThat(previous).containsOnly(Map.entry("ns/a", a), Map.entry("ns/b", b));
        assertThat(indexer.list()).containsExactlyInAnyOrder(b2, c);
        assertThat(indexer.indexValues("byNode")).containsExactly("n2");
        assertThat(indexer.indexKeys("byNode", "n2")).containsExactlyInAnyOrder("ns/b", "other/c");
        assertThat(indexer.indexValues(Indexer.NAMESPACE_INDEX)).containsExactlyInAnyOrder("ns", "other");

        indexer.put(scheduled("ns", "d", "1", "n3"));
        assertThat(previous).doesNotContainKey("ns/d");
    }

    /** Readers racing relists see one generation in every answer: never empty, never a mix. */
    @Test
    void readersNeverSeeHalfAReplace() throws Exception {
        int size = 500;
        indexer.replaceAll(generation(size, 0));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> violation = new AtomicReference<>();
        List<CompletableFuture<Void>> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            readers.add(CompletableFuture.runAsync(() -> {
                while (!stop.get() && violation.get() == null) {
                    List<V1Pod> all = indexer.byIndex(Indexer.NAMESPACE_INDEX, "ns");
                    long generations = all.stream().map(p -> p.getMetadata().getResourceVersion()).distinct().count();
                    if (all.size() != size || generations != 1) {
                        violation.set("size " + all.size() + ", generations " + generations);
                    }
                }
            }));
        }
        for (int g = 1; g <= 200; g++) {
            indexer.replaceAll(generation(size, g));
        }
        stop.set(true);
        CompletableFuture.allOf(readers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(violation.get()).isNull();
    }

    private static Map<String, V1Pod> generation(int size, int generation) {
        Map<String, V1Pod> items = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            items.put("ns/p" + i, pod("ns", "p" + i, String.valueOf(generation)));
        }
        return items;
    }
}
