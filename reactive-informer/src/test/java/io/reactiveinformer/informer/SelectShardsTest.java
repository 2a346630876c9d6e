package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.ShardRange;
import io.reactiveinformer.api.ShardSelector;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * An informer whose shard selection changes while it runs ({@link SharedIndexInformer#selectShards}): it
 * relists with the new selector, its cache then holds exactly the selected objects, its handlers see the
 * objects that left as deletions of unknown final state, and the returned {@code Mono} completes only once
 * the relist is applied. One pod in each of 32 namespaces, sharded on the namespace into 4 shards.
 */
class SelectShardsTest {

    private static final int SHARDS = 4;

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakePodServer server = new FakePodServer(time);
    private final List<Notification<V1Pod>> seen = new CopyOnWriteArrayList<>();
    private Disposable running;
    private Disposable handler;

    @AfterEach
    void stop() {
        handler.dispose();
        running.dispose();
        time.dispose();
    }

    /** Names whose hashes spread (FNV-1a of names differing in their last digits do not). */
    private static final List<String> NAMESPACES = IntStream.range(0, 32)
            .mapToObj(i -> UUID.nameUUIDFromBytes(("ns-" + i).getBytes(StandardCharsets.UTF_8)).toString()).toList();

    private static int shardOf(String namespace) {
        return ShardRange.indexOf(ShardSelector.hash(namespace), SHARDS);
    }

    private static ShardSelector shards(Integer... indices) {
        return ShardSelector.shards(ShardSelector.Key.NAMESPACE, List.of(indices), SHARDS);
    }

    private Set<String> podsOfShards(Integer... indices) {
        Set<Integer> wanted = Set.of(indices);
        return server.snapshot().keySet().stream().filter(key -> wanted.contains(shardOf(key.substring(0, key.indexOf('/')))))
                .collect(Collectors.toSet());
    }

    @Test
    void aNewSelectionReplacesTheCacheAndCompletesOnceApplied() {
        NAMESPACES.forEach(ns -> server.put(ns, "pod", "1"));
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(
                        InformerSpec.of(V1Pod.class).withShardSelector(ShardSelector.none()), server)
                .scheduler(time).build();
        handler = informer.notifications().subscribe(seen::add);
        running = informer.start();
        time.advanceTime();
        assertThat(informer.isSynced()).isTrue();
        assertThat(informer.indexer().size()).as("nothing selected").isZero();
        assertThat(server.lists).as("and nothing listed").isEmpty();

        // widen to shards 0 and 1; the lists fail twice first, and the Mono waits for the relist
        server.failNextLists(2, FakePodServer.forbidden());
        AtomicBoolean widened = new AtomicBoolean();
        informer.selectShards(shards(0, 1)).subscribe(null, null, () -> widened.set(true));
        time.advanceTimeBy(Duration.ofMillis(500));
        assertThat(widened).as("not while its relist fails").isFalse();
        time.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(widened).isTrue();
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrderElementsOf(podsOfShards(0, 1)).isNotEmpty();
        assertThat(server.lists.get(server.lists.size() - 1).shardSelector()).isEqualTo(shards(0, 1));

        // narrow to shard 1: shard 0's pods leave, as deletions of unknown final state
        seen.clear();
        AtomicBoolean narrowed = new AtomicBoolean();
        informer.selectShards(shards(1)).subscribe(null, null, () -> narrowed.set(true));
        time.advanceTime();
        assertThat(narrowed).isTrue();
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrderElementsOf(podsOfShards(1));
        assertThat(seen).allSatisfy(n -> assertThat(n).isInstanceOfSatisfying(Notification.Deleted.class,
                d -> assertThat(d.finalStateUnknown()).isTrue()));
        assertThat(seen.stream().map(Notification::key).collect(Collectors.toSet()))
                .isEqualTo(podsOfShards(0)).isNotEmpty();

        // live changes follow the selection: shard 0's are not seen any more, shard 1's are
        seen.clear();
        String ofShard0 = NAMESPACES.stream().filter(ns -> shardOf(ns) == 0).findFirst().orElseThrow();
        String ofShard1 = NAMESPACES.stream().filter(ns -> shardOf(ns) == 1).findFirst().orElseThrow();
        server.put(ofShard0, "pod", "2");
        server.put(ofShard1, "pod", "2");
        time.advanceTime();
        assertThat(seen).singleElement().satisfies(n -> assertThat(n.key()).isEqualTo(ofShard1 + "/pod"));
        assertThat(informer.shardSelector()).isEqualTo(shards(1));

        // selecting the same again is the selection in force: done at once
        AtomicBoolean same = new AtomicBoolean();
        int lists = server.lists.size();
        informer.selectShards(shards(1)).subscribe(null, null, () -> same.set(true));
        time.advanceTime();
        assertThat(same).isTrue();
        assertThat(server.lists).hasSize(lists);
    }
}
