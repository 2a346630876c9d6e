package io.reactiveinformer.cache;

import static io.reactiveinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ListerTest {

    private final ConcurrentIndexer<V1Pod> indexer = new ConcurrentIndexer<>();
    private final Lister<V1Pod> lister = new Lister<>(indexer);

    private final V1Pod webA = pod("a", "web", "1", Map.of("app", "web"));
    private final V1Pod dbA = pod("a", "db", "1", Map.of("app", "db"));
    private final V1Pod webB = pod("b", "web", "1", Map.of("app", "web"));
    private final V1Pod clusterScoped = pod(null, "global", "1", Map.of("app", "web"));

    ListerTest() {
        indexer.put(webA);
        indexer.put(dbA);
        indexer.put(webB);
        indexer.put(clusterScoped);
    }

    @Test
    void listsAllOrBySelector() {
        assertThat(lister.list()).containsExactlyInAnyOrder(webA, dbA, webB, clusterScoped);
        assertThat(lister.list(LabelSelector.parse("app=web"))).containsExactlyInAnyOrder(webA, webB, clusterScoped);
        assertThat(lister.list(LabelSelector.everything())).hasSize(4);
    }

    @Test
    void namespaceScopes() {
        assertThat(lister.namespace("a").list()).containsExactlyInAnyOrder(webA, dbA);
        assertThat(lister.namespace("a").list(LabelSelector.parse("app=web"))).containsExactly(webA);
        assertThat(lister.namespace("a").get("web")).containsSame(webA);
        assertThat(lister.namespace("b").get("db")).isEmpty();
        assertThat(lister.namespace("c").list()).isEmpty();
    }

    @Test
    void getByNameIsForClusterScopedObjects() {
        assertThat(lister.get("global")).containsSame(clusterScoped);
        assertThat(lister.get("web")).isEmpty();
    }

    @Test
    void seesLaterWrites() {
        NamespaceLister<V1Pod> a = lister.namespace("a");
        indexer.delete("a/db");
        V1Pod cache = pod("a", "cache", "1");
        indexer.put(cache);
        assertThat(a.list()).containsExactlyInAnyOrder(webA, cache);
    }
}
