package io.reactiveinformer.informer;

import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.cache.ConcurrentIndexer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class DeltaApplierTest {

    private final ConcurrentIndexer<V1Pod> cache = new ConcurrentIndexer<>();
    private final DeltaApplier<V1Pod> applier = new DeltaApplier<>(cache);
    private final List<Notification<V1Pod>> told = new ArrayList<>();
    private final SteppedFifo<V1Pod> applying = new SteppedFifo<>(cache, UnaryOperator.identity(),
            (fifo, entry) -> told.addAll(applier.apply(entry)));
    private final DeltaFifo<V1Pod> fifo = applying.fifo;

    /** What handlers were told so far, once the drain loop has applied everything pending. */
    private List<Notification<V1Pod>> drain() {
        applying.drain();
        return told;
    }

    @Test
    void watchChangesBecomeAddUpdateDelete() {
        V1Pod a1 = pod("ns", "a", "1");
        V1Pod a2 = pod("ns", "a", "2");
        V1Pod a3 = pod("ns", "a", "3");
        fifo.add(a1);
        fifo.update(a2);
        fifo.delete(a3);

        assertThat(drain()).containsExactly(
                new Notification.Added<>("ns/a", a1, false),
                new Notification.Updated<>("ns/a", a1, a2, false),
                new Notification.Deleted<>("ns/a", a3, false));
        assertThat(cache.list()).isEmpty();
    }

    @Test
    void updateOfUnknownKeyIsAnAddAndAddOfKnownKeyAnUpdate() {
        V1Pod cached = pod("ns", "b", "1");
        cache.put(cached);
        V1Pod a = pod("ns", "a", "1");
        V1Pod b = pod("ns", "b", "2");
        fifo.update(a);
        fifo.add(b);

        assertThat(drain()).containsExactly(
                new Notification.Added<>("ns/a", a, false),
                new Notification.Updated<>("ns/b", cached, b, false));
    }

    @Test
    void initialRelistAddsInInitialList() {
        V1Pod a = pod("ns", "a", "1");
        fifo.replace(List.of(a), "10", 1);
        assertThat(drain()).containsExactly(new Notification.Added<>("ns/a", a, true));
        assertThat(cache.list()).containsExactly(a);
    }

    @Test
    void relistSwapsCacheThenTellsDeletionsWithLastStateThenUpdatesAndAdds() {
        V1Pod same1 = pod("ns", "same", "1");
        V1Pod changed1 = pod("ns", "changed", "1");
        V1Pod gone1 = pod("ns", "gone", "1");
        fifo.replace(List.of(same1, changed1, gone1), "10", 1);

        V1Pod same1Again = pod("ns", "same", "1");
        V1Pod changed2 = pod("ns", "changed", "2");
        V1Pod fresh = pod("ns", "fresh", "1");

        assertThat(drain()).hasSize(3);
        fifo.replace(List.of(fresh, same1Again, changed2), "20", 1);
        assertThat(drain()).hasSize(7).endsWith(
                new Notification.Deleted<>("ns/gone", gone1, true),
                new Notification.Added<>("ns/fresh", fresh, false),
                new Notification.Updated<>("ns/same", same1, same1Again, true),
                new Notification.Updated<>("ns/changed", changed1, changed2, false));
        assertThat(cache.list()).containsExactlyInAnyOrder(fresh, same1Again, changed2);
    }

    @Test
    void deltasOvertakenByARelistAreNeverTold() {
        V1Pod a = pod("ns", "a", "1");
        cache.put(a);
        fifo.add(pod("ns", "b", "1"));
        fifo.delete(pod("ns", "a", "2"));
        fifo.replace(List.of(), "20", 1);

        assertThat(drain()).containsExactly(new Notification.Deleted<>("ns/a", a, true));
    }

    @Test
    void resyncIsAnUpdateMarkedResync() {
        V1Pod a = pod("ns", "a", "1");
        cache.put(a);
        fifo.resync();
        assertThat(drain()).containsExactly(new Notification.Updated<>("ns/a", a, a, true));
    }

    @Test
    void deleteRecreateOfOneKeyIsToldInOrder() {
        V1Pod a1 = pod("ns", "a", "1");
        cache.put(a1);
        V1Pod a2 = pod("ns", "a", "2");
        V1Pod a3 = pod("ns", "a", "3");
        fifo.delete(a1);
        fifo.add(a2);
        fifo.update(a3);

        assertThat(drain()).containsExactly(
                new Notification.Deleted<>("ns/a", a1, false),
                new Notification.Added<>("ns/a", a2, false),
                new Notification.Updated<>("ns/a", a2, a3, false));
        assertThat(cache.list()).containsExactly(a3);
    }

    @Test
    void notificationsExposeTheirKey() {
        V1Pod a = pod("ns", "a", "1");
        List<Notification<V1Pod>> all = List.of(
                new Notification.Added<>("ns/a", a, false),
                new Notification.Updated<>("ns/a", a, a, false),
                new Notification.Deleted<>("ns/a", a, true));
        assertThat(all).extracting(Notification::key).containsOnly("ns/a");
    }
}
