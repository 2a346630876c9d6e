package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.client.ResourceClient;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/** LIST: pages from one snapshot, label and field selectors. */
abstract class ListContract extends ClientContract {

    private static final int COUNT = 25;

    ListContract(Backend backend) {
        super(backend);
    }

    /** {@code cm-00} to {@code cm-24}, labelled {@code parity=even|odd} and {@code group=a|b|c} (i % 3). */
    private ResourceClient<V1ConfigMap> twentyFiveConfigMaps(String prefix) {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace(prefix));
        Flux.range(0, COUNT)
                .concatMap(i -> maps.create(configMap(name(i), Map.of("i", Integer.toString(i)),
                        Map.of("parity", i % 2 == 0 ? "even" : "odd", "group", String.valueOf((char) ('a' + i % 3))))))
                .then().block(TIMEOUT);
        return maps;
    }

    private static String name(int i) {
        return String.format("cm-%02d", i);
    }

    private static List<String> names(List<V1ConfigMap> items) {
        return items.stream().map(m -> m.getMetadata().getName()).toList();
    }

    @Test
    void pagesComeFromOneSnapshotWithContinueTokens() {
        ResourceClient<V1ConfigMap> maps = twentyFiveConfigMaps("paging");
        ListOptions tenAtATime = ListOptions.none().withLimit(10);

        ObjectList<V1ConfigMap> first = await(maps.list(tenAtATime));
        // a change between pages is not in the later ones: they are read at the first page's version
        V1ConfigMap late = await(maps.create(configMap("cm-99-late", Map.of())));
        ObjectList<V1ConfigMap> second = await(maps.list(tenAtATime.withContinue(first.continueToken())));
        ObjectList<V1ConfigMap> third = await(maps.list(tenAtATime.withContinue(second.continueToken())));
        List<String> all = new ArrayList<>();
        for (ObjectList<V1ConfigMap> page : List.of(first, second, third)) {
            all.addAll(names(page.items()));
        }

        assertThat(first.items()).hasSize(10);
        assertThat(first.hasMore()).isTrue();
        assertThat(first.remainingItemCount()).isEqualTo(15L);
        assertThat(second.items()).hasSize(10);
        assertThat(second.hasMore()).isTrue();
        assertThat(third.items()).hasSize(5);
        assertThat(third.hasMore()).isFalse();
        assertThat(List.of(second.resourceVersion(), third.resourceVersion())).containsOnly(first.resourceVersion());
        assertThat(rv(late.getMetadata().getResourceVersion())).isGreaterThan(rv(first.resourceVersion()));
        assertThat(all).containsExactlyElementsOf(IntStream.range(0, COUNT).mapToObj(ListContract::name).toList());
        assertThat(names(maps.listAll(10).collectList().block(TIMEOUT))).hasSize(COUNT + 1).contains("cm-99-late");
    }

    @Test
    void labelSelectorsNarrowTheList() {
        ResourceClient<V1ConfigMap> maps = twentyFiveConfigMaps("labels");

        assertThat(names(await(maps.list(ListOptions.none().withSelectors("parity=even", null))).items()))
                .hasSize(13).allMatch(n -> Integer.parseInt(n.substring(3)) % 2 == 0);
        assertThat(names(await(maps.list(ListOptions.none().withSelectors("parity=even,group=a", null))).items()))
                .containsExactly("cm-00", "cm-06", "cm-12", "cm-18", "cm-24");
        assertThat(await(maps.list(ListOptions.none().withSelectors("group in (a,b)", null))).items()).hasSize(17);
        assertThat(await(maps.list(ListOptions.none().withSelectors("group notin (a),parity!=odd", null))).items())
                .hasSize(8);
        assertThat(await(maps.list(ListOptions.none().withSelectors("group,!missing", null))).items()).hasSize(COUNT);
        assertThat(await(maps.list(ListOptions.none().withSelectors("missing", null))).items()).isEmpty();
        // the handle's selector and the options' are both applied
        assertThat(names(await(maps.withLabelSelector("group=c").list(ListOptions.none().withSelectors("parity=odd", null)))
                .items())).containsExactly("cm-05", "cm-11", "cm-17", "cm-23");
    }

    @Test
    void pagesOfASelectedListAreFilledUpToTheLimit() {
        ResourceClient<V1ConfigMap> maps = twentyFiveConfigMaps("selpaging");
        ListOptions fiveEven = ListOptions.none().withSelectors("parity=even", null).withLimit(5);

        ObjectList<V1ConfigMap> first = await(maps.list(fiveEven));
        ObjectList<V1ConfigMap> second = await(maps.list(fiveEven.withContinue(first.continueToken())));
        ObjectList<V1ConfigMap> third = await(maps.list(fiveEven.withContinue(second.continueToken())));

        assertThat(names(first.items())).containsExactly("cm-00", "cm-02", "cm-04", "cm-06", "cm-08");
        assertThat(names(second.items())).containsExactly("cm-10", "cm-12", "cm-14", "cm-16", "cm-18");
        assertThat(names(third.items())).containsExactly("cm-20", "cm-22", "cm-24");
        assertThat(third.hasMore()).isFalse();
    }

    @Test
    void fieldSelectorsOnNameAndNamespace() {
        ResourceClient<V1ConfigMap> maps = twentyFiveConfigMaps("fields");
        String ns = maps.namespace();

        assertThat(names(await(maps.list(ListOptions.none().withSelectors(null, "metadata.name=cm-07"))).items()))
                .containsExactly("cm-07");
        assertThat(await(maps.list(ListOptions.none().withSelectors(null, "metadata.name!=cm-07"))).items())
                .hasSize(COUNT - 1);
        assertThat(names(await(maps.inAnyNamespace().withFieldSelector("metadata.namespace=" + ns)
                .list(ListOptions.none().withSelectors("parity=odd", "metadata.name!=cm-01"))).items()))
                .hasSize(11).doesNotContain("cm-01");
        assertThat(await(maps.list(ListOptions.none().withSelectors(null, "metadata.namespace=elsewhere"))).items())
                .isEmpty();
    }

    /**
     * The items of a LIST are bound on {@code Schedulers.parallel()} while the connection reads on; a page
     * must not wait for workers that are busy with something else (here: every one of them spinning until
     * the page is in), nor come out of order. Binding that waited for them never completed.
     */
    @Test
    void aLargeListCompletesInTheServersOrderWhileEveryParallelWorkerIsBusy() throws InterruptedException {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("busy"));
        String filler = "x".repeat(2_000);
        Flux.range(0, 300)
                .flatMap(i -> maps.create(configMap(String.format("cm-%03d", i), Map.of("filler", filler))), 16)
                .then().block(TIMEOUT);
        AtomicBoolean released = new AtomicBoolean();
        Set<Thread> spinning = ConcurrentHashMap.newKeySet();
        AtomicLong spins = new AtomicLong();
        try {
            for (int tries = 0; spinning.size() < Schedulers.DEFAULT_POOL_SIZE; tries++) {
                assertThat(tries).as("spinners scheduled before every worker had one").isLessThan(100);
                CountDownLatch started = new CountDownLatch(1);
                Schedulers.parallel().schedule(() -> {
                    boolean first = spinning.add(Thread.currentThread());
                    started.countDown();
                    // a busy loop, not Thread.onSpinWait (which BlockHound counts as blocking)
                    while (first && !released.get()) {
                        spins.incrementAndGet();
                    }
                });
                // one dealt to a worker that already spins starts only after the release: deal the next
                started.await(1, TimeUnit.SECONDS);
            }

            List<String> listed = names(await(maps.list(ListOptions.none())).items());

            assertThat(listed).containsExactlyElementsOf(IntStream.range(0, 300).mapToObj(i -> String.format("cm-%03d", i)).toList());
        } finally {
            released.set(true);
        }
    }

    /**
     * A server with {@code ShardedListAndWatch} (kube-apiserver 1.36 with the gate on, as {@code testenv/}
     * starts it; the simulated server by default) lists exactly the shard, computed with our hash, and echoes
     * the selector; the shards of a split cover the namespace once.
     */
    @Test
    void aShardSelectorListsExactlyItsShardWithOurHashAndIsEchoed() {
        ResourceClient<V1ConfigMap> maps = twentyFiveConfigMaps("shards");
        List<V1ConfigMap> all = await(maps.list(ListOptions.none())).items();
        List<String> covered = new ArrayList<>();
        for (int shard = 0; shard < 4; shard++) {
            ShardSelector selector = ShardSelector.shard(ShardSelector.Key.UID, shard, 4);

            ObjectList<V1ConfigMap> page = await(maps.list(ListOptions.none().withShardSelector(selector)));

            assertThat(page.shardSelector()).as("the server's echo").isEqualTo(selector.toString());
            assertThat(names(page.items())).containsExactlyInAnyOrderElementsOf(
                    names(all.stream().filter(selector::matches).toList()));
            covered.addAll(names(page.items()));
        }
        assertThat(covered).containsExactlyInAnyOrderElementsOf(names(all));
    }
}
