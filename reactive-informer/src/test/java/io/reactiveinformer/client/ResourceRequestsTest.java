package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.api.WatchOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourceRequestsTest {

    private static final ResourceType<V1ConfigMap> CONFIG_MAPS = ResourceType.of(V1ConfigMap.class);
    private static final ResourceRequests PLAIN = new ResourceRequests(CONFIG_MAPS, null, null, false);

    @Test
    void pathsFollowTheCoreAndGroupLayouts() {
        assertThat(PLAIN.object("default", "a")).isEqualTo("/api/v1/namespaces/default/configmaps/a");
        assertThat(PLAIN.list(null, ListOptions.none())).isEqualTo("/api/v1/configmaps");
        ResourceRequests widgets = new ResourceRequests(
                ResourceType.namespaced("example.com", "v1", "widgets", "Widget", V1ConfigMap.class), null, null, false);
        assertThat(widgets.object("ns", "w")).isEqualTo("/apis/example.com/v1/namespaces/ns/widgets/w");
        ResourceRequests namespaces = new ResourceRequests(ResourceType.of(V1Namespace.class), null, null, false);
        assertThat(namespaces.replace(null, "kube-system", "status")).isEqualTo("/api/v1/namespaces/kube-system/status");
    }

    @Test
    void aListCarriesPagingVersionAndTheHandlesSelectorsAndedWithTheOptions() {
        ResourceRequests selected = new ResourceRequests(CONFIG_MAPS, "app=a", null, false);
        assertThat(selected.list("default", ListOptions.none().withSelectors("tier=web", "metadata.name=x").withLimit(500)
                .withContinue("tok").withResourceVersion("0", "NotOlderThan")))
                .isEqualTo("/api/v1/namespaces/default/configmaps?labelSelector=app%3Da%2Ctier%3Dweb"
                        + "&fieldSelector=metadata.name%3Dx&limit=500&continue=tok&resourceVersion=0"
                        + "&resourceVersionMatch=NotOlderThan");
        assertThat(PLAIN.list(null, ListOptions.none().withLimit(0).withResourceVersion("", null)))
                .as("no limit of 0; an empty resourceVersion is sent").isEqualTo("/api/v1/configmaps?resourceVersion=");
    }

    @Test
    void aWatchLeavesAnEmptyVersionOut() {
        assertThat(PLAIN.watch(null, WatchOptions.from("").withTimeoutSeconds(300)))
                .isEqualTo("/api/v1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=300");
        assertThat(PLAIN.watch("default", WatchOptions.from("42").withInitialEvents()))
                .isEqualTo("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=42"
                        + "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true");
    }

    @Test
    void listsAndWatchesCarryTheShardSelectorInTheServersSyntax() {
        ShardSelector upperHalf = ShardSelector.shard(ShardSelector.Key.UID, 1, 2);
        String param = "shardSelector=shardRange%28object.metadata.uid%2C%20%270x8000000000000000%27%2C%20"
                + "%270x10000000000000000%27%29";

        assertThat(PLAIN.list(null, ListOptions.none().withShardSelector(upperHalf).withLimit(500)))
                .isEqualTo("/api/v1/configmaps?limit=500&" + param);
        assertThat(PLAIN.watch(null, WatchOptions.from("42").withShardSelector(upperHalf)))
                .isEqualTo("/api/v1/configmaps?watch=true&resourceVersion=42&allowWatchBookmarks=true&" + param);
        assertThat(PLAIN.list(null, ListOptions.none().withShardSelector(null))).isEqualTo("/api/v1/configmaps");
    }

    @Test
    void aDryRunHandleMarksItsWritesButNotItsReads() {
        ResourceRequests dryRun = new ResourceRequests(CONFIG_MAPS, "app=a", null, true);
        assertThat(dryRun.create("default")).isEqualTo("/api/v1/namespaces/default/configmaps?dryRun=All");
        assertThat(dryRun.replace("default", "a", null)).isEqualTo("/api/v1/namespaces/default/configmaps/a?dryRun=All");
        assertThat(dryRun.patch("default", "a", null, "me", true))
                .isEqualTo("/api/v1/namespaces/default/configmaps/a?fieldManager=me&force=true&dryRun=All");
        assertThat(dryRun.object("default", "a")).isEqualTo("/api/v1/namespaces/default/configmaps/a");
        assertThat(dryRun.deleteCollection("default"))
                .isEqualTo("/api/v1/namespaces/default/configmaps?labelSelector=app%3Da");
        assertThat(dryRun.deleteOptions(DeleteOptions.none())).containsEntry("dryRun", List.of("All"));
        assertThat(PLAIN.patch("default", "a", "status", null, false))
                .isEqualTo("/api/v1/namespaces/default/configmaps/a/status");
    }

    @Test
    void deleteOptionsGoInTheBody() {
        assertThat(PLAIN.deleteOptions(DeleteOptions.none())).containsExactly(
                Map.entry("kind", "DeleteOptions"), Map.entry("apiVersion", "v1"));
        assertThat(PLAIN.deleteOptions(DeleteOptions.none().withPreconditions("u", null)
                .withPropagation(DeleteOptions.Propagation.FOREGROUND).withGracePeriod(Duration.ofSeconds(5))))
                .containsEntry("preconditions", Map.of("uid", "u"))
                .containsEntry("propagationPolicy", "Foreground")
                .containsEntry("gracePeriodSeconds", 5L)
                .doesNotContainKey("dryRun");
    }

    @Test
    void namesAndNamespacesMustBePathSegments() {
        for (String bad : new String[] {"", "a/b", "a?b", "a%2F", "a#b"}) {
            assertThatIllegalArgumentException().isThrownBy(() -> PLAIN.object("default", bad));
            assertThatIllegalArgumentException().isThrownBy(() -> PLAIN.create(bad));
        }
    }
}
