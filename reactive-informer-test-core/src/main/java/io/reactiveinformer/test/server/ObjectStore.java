package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a state stores, as etcd does for kube-apiserver: the registered kinds (each with its objects
 * and its own {@link History}), the one global monotonically increasing resourceVersion, and the
 * point up to which {@link #compact()} dropped every history. {@link #commit} is the only way a write
 * reaches the objects and the histories.
 *
 * <p>Threading: not thread-safe on its own. Every method is called with the state's lock (the
 * {@link ClusterState} monitor) held, and that lock also guards the {@link Kind}s it hands out.
 */
final class ObjectStore {

    private final ResourceRegistry registry;
    private long resourceVersion = 1;
    /** Changes of every resource up to this version are gone (the last {@link #compact()}). */
    private long compactedTo = 1;

    ObjectStore(int historyLimit) {
        this.registry = new ResourceRegistry(historyLimit);
    }

    ResourceRegistry registry() {
        return registry;
    }

    /** The current (latest) resourceVersion. */
    long resourceVersion() {
        return resourceVersion;
    }

    /** Registers {@code type} unless already there; its history starts at the last compaction. */
    void register(ResourceType<?> type, boolean statusSubresource, Schema schema) {
        registry.register(type, statusSubresource, schema, compactedTo);
    }

    /** Drops the history of every resource, like an etcd compaction at the current revision. */
    void compact() {
        compactedTo = resourceVersion;
        for (Kind kind : registry.all()) {
            kind.history.compact(resourceVersion);
        }
    }

    /**
     * Commits a mutation: takes the next resourceVersion, stores the object and appends the change
     * to its resource's history. A dry run commits nothing and answers what would have been stored
     * (a created object has no resourceVersion yet).
     */
    ObjectNode commit(Mutation m, boolean dryRun) {
        if (!m.changes()) {
            return m.object();
        }
        if (dryRun) {
            if (m.type() == EventType.ADDED) {
                ObjectSemantics.metadata(m.object()).remove("resourceVersion");
            }
            return m.object();
        }
        long rv = ++resourceVersion;
        ObjectNode object = m.object();
        ObjectSemantics.metadata(object).put("resourceVersion", Long.toString(rv));
        if (m.type() == EventType.DELETED) {
            m.kind().objects.remove(m.key());
        } else {
            m.kind().objects.put(m.key(), object);
        }
        m.kind().history.append(new Change(rv, m.type(), m.key(), object, m.previous()));
        return object;
    }

    /** For diagnostics: the versions, and the kinds that hold objects with how many each. */
    String summary() {
        StringBuilder b = new StringBuilder("rv=").append(resourceVersion).append(", compacted=").append(compactedTo);
        for (Kind kind : registry.all()) {
            if (!kind.objects.isEmpty()) {
                b.append(", ").append(kind.type.plural()).append('=').append(kind.objects.size());
            }
        }
        return b.toString();
    }
}
