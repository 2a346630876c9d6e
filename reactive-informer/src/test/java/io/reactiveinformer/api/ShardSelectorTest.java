package io.reactiveinformer.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ShardSelector.Key;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ShardSelectorTest {

    /**
     * Expected values printed by the real thing: a throwaway Go program calling
     * {@code k8s.io/apimachinery@v0.36.3/pkg/sharding.HashField(s)} (Go 1.26, {@code hash/fnv.New64a}) for
     * each input; HashField formats {@code %016x}.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "\"\"|cbf29ce484222325",
            "abc|e71fa2190541574b",
            "test-uid-123|d0ba679834556c0b",
            "6f1c2a7e-3b4d-4e5f-8a9b-0c1d2e3f4a5b|e1ea20b9f27d4da7",
            "0d9a8b7c-6e5f-4a3b-9c2d-1e0f9a8b7c6d|85c44927f0c5a749",
            "c3e1f2a4-5b6c-4d7e-8f90-a1b2c3d4e5f6|86c9a53cd421ca9f",
            "default|ebada5168620c5fe",
            "kube-system|df65c7bc1d82b35e",
            "ünïcødé-名前空間|a67251014fff40fc",
    })
    void hashIsGoFnv64aOverUtf8(String value, String goHashField) {
        assertThat(String.format("%016x", ShardSelector.hash(value))).isEqualTo(goHashField);
    }

    @Test
    void rendersTheServersSyntax() {
        ShardSelector two = ShardSelector.of(Key.UID,
                ShardRange.of("0x0000000000000000", "0x4000000000000000"),
                ShardRange.of("0xc000000000000000", "0x10000000000000000"));

        assertThat(two).hasToString("shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')"
                + " || shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')");
        assertThat(ShardSelector.shard(Key.NAMESPACE, 0, 2)).hasToString(
                "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')");
    }

    /** The 4-shard split of the field's documentation in k8s.io/apimachinery meta/v1 ListOptions.shardSelector. */
    @Test
    void splitsIntoEqualShardsCoveringTheSpace() {
        List<String> four = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            four.add(ShardRange.split(i, 4).toString());
        }
        assertThat(four).containsExactly(
                "[0x0000000000000000, 0x4000000000000000)",
                "[0x4000000000000000, 0x8000000000000000)",
                "[0x8000000000000000, 0xc000000000000000)",
                "[0xc000000000000000, 0x10000000000000000)");
        assertThat(ShardRange.split(0, 1)).isEqualTo(ShardRange.of("0x0000000000000000", "0x10000000000000000"));
        // Three shards: each end is the next start, rounded down, and the last reaches 2^64.
        assertThat(ShardRange.split(0, 3).end()).isEqualTo("0x5555555555555555").isEqualTo(ShardRange.split(1, 3).start());
        assertThat(ShardRange.split(1, 3).end()).isEqualTo("0xaaaaaaaaaaaaaaaa").isEqualTo(ShardRange.split(2, 3).start());
        assertThat(ShardRange.split(2, 3).end()).isEqualTo("0x10000000000000000");
    }

    @Test
    void startIsInclusiveEndExclusiveAndComparisonUnsigned() {
        ShardRange low = ShardRange.of("0x0000000000000000", "0x8000000000000000");
        ShardRange high = ShardRange.of("0x8000000000000000", "0x10000000000000000");

        assertThat(low.contains(0L)).isTrue();
        assertThat(low.contains(0x7fffffffffffffffL)).isTrue();
        assertThat(low.contains(0x8000000000000000L)).as("end exclusive").isFalse();
        assertThat(high.contains(0x8000000000000000L)).as("start inclusive").isTrue();
        // Negative as a signed long, above 2^63 unsigned: only the upper half has them.
        assertThat(high.contains(0xffffffffffffffffL)).as("2^64 - 1 is below the 2^64 end").isTrue();
        assertThat(low.contains(0xcbf29ce484222325L)).isFalse();
        assertThat(high.contains(0xcbf29ce484222325L)).isTrue();
    }

    @Test
    void matchesHashesTheUidOrNamespace() {
        // "test-uid-123" hashes 0xd0ba679834556c0b, "default" 0xebada5168620c5fe (Go vectors above).
        V1ConfigMap object = new V1ConfigMap().metadata(new V1ObjectMeta().uid("test-uid-123").namespace("default"));
        ShardRange aroundUid = ShardRange.of("0xd0ba679834556c0b", "0xd0ba679834556c0c");

        assertThat(ShardSelector.of(Key.UID, aroundUid).matches(object)).isTrue();
        assertThat(ShardSelector.of(Key.NAMESPACE, aroundUid).matches(object)).isFalse();
        assertThat(ShardSelector.of(Key.NAMESPACE, ShardRange.of("0xebada5168620c5fe", "0xebada5168620c5ff"))
                .matches(object)).isTrue();
        // Any of several ranges.
        assertThat(ShardSelector.of(Key.UID, ShardRange.split(0, 4), aroundUid).matches(object)).isTrue();
        assertThat(ShardSelector.of(Key.UID, ShardRange.split(0, 4), ShardRange.split(1, 4)).matches(object)).isFalse();
        // A cluster-scoped object has no namespace: the server hashes "" (0xcbf29ce484222325, upper half).
        V1ConfigMap clusterScoped = new V1ConfigMap().metadata(new V1ObjectMeta().uid("u"));
        assertThat(ShardSelector.shard(Key.NAMESPACE, 1, 2).matches(clusterScoped)).isTrue();
        assertThat(ShardSelector.shard(Key.NAMESPACE, 0, 2).matches(clusterScoped)).isFalse();
    }

    @Test
    void refusesWhatTheServerRefuses() {
        assertThatThrownBy(() -> ShardRange.of("0x0", "0x8000000000000000"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16-digit");
        assertThatThrownBy(() -> ShardRange.of("0x8000000000000000", "0x8000000000000000"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("less than");
        assertThatThrownBy(() -> ShardRange.of("0x10000000000000000", "0x10000000000000000"))
                .as("2^64 is only an end").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShardRange.of("0x000000000000000A", "0x8000000000000000"))
                .as("upper-case hex").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShardRange.split(2, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShardSelector.of(Key.UID, List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
