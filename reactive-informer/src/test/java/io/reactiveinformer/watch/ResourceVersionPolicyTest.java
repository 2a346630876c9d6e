package io.reactiveinformer.watch;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import org.junit.jupiter.api.Test;

class ResourceVersionPolicyTest {

    @Test
    void listStartsAtZeroThenAtTheLastSyncedVersionAndFromEmptyWhenThatIsUnavailable() {
        assertThat(ResourceVersionPolicy.list("", false)).as("nothing synced: the watch cache").isEqualTo("0");
        assertThat(ResourceVersionPolicy.list("42", false)).isEqualTo("42");
        assertThat(ResourceVersionPolicy.list("42", true)).as("unavailable: a consistent read").isEmpty();
        assertThat(ResourceVersionPolicy.list("", true)).isEmpty();
    }

    @Test
    void streamingListNeverStartsAtZero() {
        assertThat(ResourceVersionPolicy.streamingList("", false)).isEmpty();
        assertThat(ResourceVersionPolicy.streamingList("42", false)).isEqualTo("42");
        assertThat(ResourceVersionPolicy.streamingList("42", true)).isEmpty();
    }

    @Test
    void aConfiguredPageSizeWinsAndZeroMeansUnlimited() {
        assertThat(ResourceVersionPolicy.pageLimit(100, "42", false)).isEqualTo(100);
        assertThat(ResourceVersionPolicy.pageLimit(100, "0", false)).isEqualTo(100);
        assertThat(ResourceVersionPolicy.pageLimit(0, "", true)).isNull();
    }

    @Test
    void byDefaultOnlyAListAtASpecificVersionFromAWatchCacheIsUnlimited() {
        assertThat(ResourceVersionPolicy.pageLimit(null, "42", false)).as("served by the watch cache").isNull();
        assertThat(ResourceVersionPolicy.pageLimit(null, "42", true)).as("no watch cache: etcd")
                .isEqualTo(ReflectorOptions.DEFAULT_PAGE_SIZE);
        assertThat(ResourceVersionPolicy.pageLimit(null, "0", false)).isEqualTo(ReflectorOptions.DEFAULT_PAGE_SIZE);
        assertThat(ResourceVersionPolicy.pageLimit(null, "", false)).isEqualTo(ReflectorOptions.DEFAULT_PAGE_SIZE);
    }

    @Test
    void onlyAPaginatedListAtZeroRevealsThatTheServerHasNoWatchCache() {
        assertThat(ResourceVersionPolicy.revealsNoWatchCache("0", true)).isTrue();
        assertThat(ResourceVersionPolicy.revealsNoWatchCache("0", false)).isFalse();
        assertThat(ResourceVersionPolicy.revealsNoWatchCache("", true)).as("a consistent read pages anyway").isFalse();
        assertThat(ResourceVersionPolicy.revealsNoWatchCache("42", true)).isFalse();
    }

    @Test
    void anObjectsVersionIsNullWithoutMetadata() {
        assertThat(ResourceVersionPolicy.of(Fixtures.cm("a", "7"))).isEqualTo("7");
        assertThat(ResourceVersionPolicy.of(new V1ConfigMap())).isNull();
    }
}
