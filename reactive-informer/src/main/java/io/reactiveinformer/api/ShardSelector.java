package io.reactiveinformer.api;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A shard selector of Kubernetes' {@code ShardedListAndWatch} (KEP-5866, alpha in 1.36): the objects whose
 * uid (or namespace) hashes into one of some {@link ShardRange ranges}. Sent as the {@code shardSelector}
 * parameter of a list or watch, it makes the server return only those objects; {@link #matches} computes
 * the same hash, so a client can filter when the server did not (gate off, older server).
 *
 * <p>{@link #toString()} renders exactly what {@code k8s.io/apimachinery/pkg/sharding} renders, and what
 * the server echoes in a list's {@code metadata.shardInfo.selector}:
 * {@code shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')}, several ranges
 * joined with {@code " || "}. All ranges hash the same field, as the server requires. Immutable.
 *
 * <p>{@link #none()} selects no object: what a replica of a sharded controller that holds no shard caches.
 * The server has no syntax for it, so it is never sent: a reflector with it lists nothing.
 */
public final class ShardSelector {

    /** The field whose value is hashed; the only two the server supports. */
    public enum Key {
        /** {@code object.metadata.uid}: objects spread evenly, whatever their namespace. */
        UID("object.metadata.uid"),
        /** {@code object.metadata.namespace}: a namespace's objects stay together; cluster-scoped ones hash {@code ""}. */
        NAMESPACE("object.metadata.namespace");

        private final String path;

        Key(String path) {
            this.path = path;
        }

        /** The field path as the selector spells it, e.g. {@code object.metadata.uid}. */
        public String path() {
            return path;
        }
    }

    private static final long FNV64_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV64_PRIME = 0x100000001b3L;

    private final Key key;
    private final List<ShardRange> ranges;
    private final String rendered;

    private static final ShardSelector NONE = new ShardSelector(Key.UID, List.of(), true);

    private ShardSelector(Key key, List<ShardRange> ranges, boolean none) {
        if (ranges.isEmpty() && !none) {
            // The server refuses an empty selector; "no selector" is a null option, not an empty one.
            throw new IllegalArgumentException("a shard selector needs at least one range");
        }
        this.key = key;
        this.ranges = List.copyOf(ranges);
        this.rendered = this.ranges.stream()
                .map(r -> "shardRange(" + key.path() + ", '" + r.start() + "', '" + r.end() + "')")
                .collect(Collectors.joining(" || "));
    }

    /** The objects whose {@code key} hashes into any of {@code ranges} (in the given order). */
    public static ShardSelector of(Key key, List<ShardRange> ranges) {
        return new ShardSelector(Objects.requireNonNull(key, "key"), ranges, false);
    }

    /**
     * The union of shards {@code indices} of {@code count} equal shards over {@code key} ({@link
     * ShardRange#split}), adjacent ones joined into one range; {@link #none()} when {@code indices} is empty.
     */
    public static ShardSelector shards(Key key, Collection<Integer> indices, int count) {
        List<ShardRange> ranges = new ArrayList<>();
        for (int index : new TreeSet<>(indices)) {
            ShardRange range = ShardRange.split(index, count);
            int lastIndex = ranges.size() - 1;
            if (lastIndex >= 0 && ranges.get(lastIndex).precedes(range)) {
                ranges.set(lastIndex, ranges.get(lastIndex).joinedWith(range));
            } else {
                ranges.add(range);
            }
        }
        return ranges.isEmpty() ? NONE : of(key, ranges);
    }

    /** The selector of no object; {@link #toString()} renders it as {@code ""}, which is never sent. */
    public static ShardSelector none() {
        return NONE;
    }

    /** Whether this is {@link #none()}: no range, no object. */
    public boolean isNone() {
        return ranges.isEmpty();
    }

    /** The objects whose {@code key} hashes into any of {@code ranges} (in the given order). */
    public static ShardSelector of(Key key, ShardRange... ranges) {
        return of(key, List.of(ranges));
    }

    /** Shard {@code index} of {@code count} equal shards over {@code key}: see {@link ShardRange#split}. */
    public static ShardSelector shard(Key key, int index, int count) {
        return of(key, ShardRange.split(index, count));
    }

    /**
     * 64-bit FNV-1a over the UTF-8 bytes of {@code value}, as Go's {@code hash/fnv.New64a} and the server's
     * {@code sharding.HashField} compute it; read the result as unsigned.
     */
    public static long hash(String value) {
        long h = FNV64_OFFSET;
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= FNV64_PRIME;
        }
        return h;
    }

    /**
     * Whether the server would return {@code object}: its uid (or namespace) hashes into one of the ranges.
     * A missing field hashes as {@code ""}, as the server's accessor returns it.
     */
    public boolean matches(KubernetesObject object) {
        V1ObjectMeta meta = object.getMetadata();
        String value = meta == null ? null : key == Key.UID ? meta.getUid() : meta.getNamespace();
        long h = hash(value == null ? "" : value);
        for (ShardRange range : ranges) {
            if (range.contains(h)) {
                return true;
            }
        }
        return false;
    }

    public Key key() {
        return key;
    }

    public List<ShardRange> ranges() {
        return ranges;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShardSelector other && other.rendered.equals(rendered);
    }

    @Override
    public int hashCode() {
        return rendered.hashCode();
    }

    /** The wire syntax, the value of the {@code shardSelector} parameter and of the server's echo. */
    @Override
    public String toString() {
        return rendered;
    }
}
