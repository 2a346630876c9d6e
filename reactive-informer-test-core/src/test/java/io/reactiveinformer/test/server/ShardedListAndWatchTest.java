package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@code shardSelector} (KEP-5866) over HTTP: the simulated server as kube-apiserver 1.36 with the
 * {@code ShardedListAndWatch} gate on and off, and an informer of one shard against both, which holds exactly
 * its shard either way.
 */
class ShardedListAndWatchTest {

    private static final Duration T = Duration.ofSeconds(10);
    /** Two of four uid shards: an informer may watch several ranges. */
    private static final ShardSelector SHARD = ShardSelector.of(ShardSelector.Key.UID,
            io.reactiveinformer.api.ShardRange.split(1, 4), io.reactiveinformer.api.ShardRange.split(3, 4));

    private SimulatedApiServer server;
    private KubernetesClient client;
    private ResourceClient<V1ConfigMap> maps;

    private void start(boolean gate) {
        server = SimulatedApiServer.start(ClusterState.builder().shardedListAndWatch(gate).build());
        client = server.newClient();
        maps = client.resource(V1ConfigMap.class).inNamespace("shop");
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private List<V1ConfigMap> create(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> maps.create(new V1ConfigMap()
                .metadata(new V1ObjectMeta().namespace("shop").name(prefix + i))).block(T)).toList();
    }

    private static Set<String> namesIn(List<V1ConfigMap> objects) {
        return objects.stream().filter(SHARD::matches).map(o -> o.getMetadata().getName()).collect(Collectors.toSet());
    }

    @Test
    void withTheGateOnAListHoldsTheShardAndEchoesTheSelector() {
        start(true);
        List<V1ConfigMap> all = create("cm-", 40);
        assertThat(namesIn(all)).as("the fixture has objects in and out of the shard").isNotEmpty().hasSizeLessThan(40);

        ObjectList<V1ConfigMap> page = maps.list(ListOptions.none().withShardSelector(SHARD)).block(T);

        assertThat(page.items()).extracting(o -> o.getMetadata().getName()).containsExactlyInAnyOrderElementsOf(namesIn(all));
        assertThat(page.shardSelector()).isEqualTo(SHARD.toString());
        // paginated: every page echoes it, and the pages hold the shard
        ObjectList<V1ConfigMap> first = maps.list(ListOptions.none().withShardSelector(SHARD).withLimit(3)).block(T);
        assertThat(first.items()).hasSize(3).allMatch(SHARD::matches);
        assertThat(first.shardSelector()).isEqualTo(SHARD.toString());
        assertThat(first.remainingItemCount()).isNull();
        assertThat(maps.list(ListOptions.none()).block(T).shardSelector()).as("no selector, no echo").isNull();
    }

    @Test
    void withTheGateOnAWatchSendsTheShardOnly() {
        start(true);
        String from = maps.list(ListOptions.none()).block(T).resourceVersion();
        List<V1ConfigMap> created = create("cm-", 20);
        Set<String> expected = namesIn(created);

        StepVerifier.create(maps.watch(WatchOptions.from(from).withShardSelector(SHARD))
                        .filter(e -> e.type() != WatchEvent.Type.BOOKMARK)
                        .map(e -> e.object().getMetadata().getName())
                        .take(expected.size()).collect(Collectors.toSet()))
                .expectNext(expected)
                .verifyComplete();
    }

    @Test
    void withTheGateOnAMalformedSelectorIsRefusedAsTheRealServerRefusesIt() {
        start(true);
        String bad = "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')";

        StepVerifier.create(RawHttp.get(server, "/api/v1/namespaces/shop/configmaps?shardSelector="
                        + java.net.URLEncoder.encode(bad, java.nio.charset.StandardCharsets.UTF_8)))
                .assertNext(r -> {
                    assertThat(r.status()).isEqualTo(500);
                    assertThat(r.text()).contains("invalid shard selector: hexStart must be a 0x-prefixed 16-digit "
                            + "hex value, got \\\"0x0\\\" (did you mean \\\"0x0000000000000000\\\"?)");
                })
                .verifyComplete();
        assertThatThrownBy(() -> server.state().shardSelectorParameter(
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || "
                        + "shardRange(object.metadata.namespace, '0x4000000000000000', '0x8000000000000000')"))
                .isInstanceOf(ApiError.class).hasMessage("invalid shard selector: all shard ranges must use the same "
                        + "field, got \"object.metadata.uid\" and \"object.metadata.namespace\"");
        assertThatThrownBy(() -> server.state().shardSelectorParameter("shardRange(object.metadata.name, "
                + "'0x0000000000000000', '0x4000000000000000')")).isInstanceOf(ApiError.class)
                .hasMessageContaining("unsupported field path \"object.metadata.name\"");
        assertThatThrownBy(() -> server.state().shardSelectorParameter("shardRange(object.metadata.uid, "
                + "'0x8000000000000000', '0x4000000000000000')")).isInstanceOf(ApiError.class)
                .hasMessageContaining("must be less than end");
        assertThatThrownBy(() -> server.state().shardSelectorParameter(" ")).isInstanceOf(ApiError.class)
                .hasMessageContaining("empty shard selector is not allowed");
        // a watch is refused the same way
        StepVerifier.create(RawHttp.get(server, "/api/v1/namespaces/shop/configmaps?watch=true&shardSelector=x"))
                .assertNext(r -> assertThat(r.status()).isEqualTo(500))
                .verifyComplete();
        // what this library renders, the server reads back to the same rendering (its echo)
        assertThat(server.state().shardSelectorParameter(SHARD.toString())).isEqualTo(SHARD);
    }

    @Test
    void withTheGateOffTheParameterIsIgnoredAndNotEchoed() {
        start(false);
        create("cm-", 10);

        ObjectList<V1ConfigMap> page = maps.list(ListOptions.none().withShardSelector(SHARD)).block(T);

        assertThat(page.items()).hasSize(10);
        assertThat(page.shardSelector()).isNull();
    }

    @Test
    void anInformerOfAShardHoldsExactlyItWithTheGateOn() {
        informerHoldsExactlyTheShard(true);
    }

    @Test
    void anInformerOfAShardHoldsExactlyItWithTheGateOffByFilteringLocally() {
        informerHoldsExactlyTheShard(false);
    }

    private void informerHoldsExactlyTheShard(boolean gate) {
        start(gate);
        List<V1ConfigMap> listed = create("listed-", 30);
        SharedIndexInformer<V1ConfigMap> informer = SharedIndexInformer.builder(
                InformerSpec.of(V1ConfigMap.class).inNamespace("shop").withShardSelector(SHARD),
                ListerWatcher.of(maps)).build();
        Disposable running = informer.start();
        try {
            informer.hasSynced().block(T);
            assertThat(names(informer)).isEqualTo(namesIn(listed));
            assertThat(informer.health().shardFilteringLocally()).isEqualTo(!gate);
            assertThat(informer.health().healthy()).isTrue();

            // watched: objects in and out of the shard, then one in it; once that one is cached, all before it
            // went through the watch (in resourceVersion order)
            List<V1ConfigMap> watched = create("watched-", 30);
            V1ConfigMap marker = create("marker-", 40).stream().filter(SHARD::matches).findFirst().orElseThrow();
            Mono<Notification<V1ConfigMap>> markerCached = informer.notifications()
                    .filter(n -> n.key().equals("shop/" + marker.getMetadata().getName()))
                    .next();
            markerCached.block(T);
            assertThat(names(informer)).containsAll(namesIn(listed)).containsAll(namesIn(watched))
                    .contains(marker.getMetadata().getName());
            assertThat(informer.indexer().list()).as("nothing outside the shard").allMatch(SHARD::matches);
            assertThat(informer.health().shardFilteringLocally()).isEqualTo(!gate);
        } finally {
            running.dispose();
        }
    }

    private static Set<String> names(SharedIndexInformer<V1ConfigMap> informer) {
        return informer.indexer().list().stream().map(o -> o.getMetadata().getName()).collect(Collectors.toSet());
    }
}
