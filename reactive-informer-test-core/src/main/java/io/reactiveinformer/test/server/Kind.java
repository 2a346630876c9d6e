package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import java.util.TreeMap;
import tools.jackson.databind.node.ObjectNode;

/**
 * One registered resource: its current objects by key (in key order, as etcd returns them) and its
 * own history, as the real server keeps one watch cache per resource type. Guarded by the state's lock.
 */
final class Kind {

    final ResourceType<?> type;
    final boolean statusSubresource;
    final TreeMap<String, ObjectNode> objects = new TreeMap<>();
    final History history;
    /** Looked up at the first write that needs it: parsing a document at every start would slow tests down. */
    private Schema schema;
    /** Whether the schema is a CustomResourceDefinition's, which the server validates and prunes by. */
    final boolean defined;

    /** {@code definedSchema}: a custom resource's structural schema from its definition, or null. */
    Kind(ResourceType<?> type, boolean statusSubresource, Schema definedSchema, int historyLimit, long compactedTo) {
        this.type = type;
        this.statusSubresource = statusSubresource;
        this.schema = definedSchema;
        this.defined = definedSchema != null;
        this.history = new History(historyLimit, compactedTo);
    }

    /**
     * How this kind's fields merge and validate: the CustomResourceDefinition's schema for a custom
     * resource registered with one, kube-apiserver's OpenAPI for built-in kinds, else unknown.
     */
    Schema schema() {
        if (schema == null) {
            schema = Schema.builtIn(type).orElse(Schema.UNKNOWN);
        }
        return schema;
    }

    /** The stored object at {@code key}; 404 (naming {@code name}) when there is none. */
    ObjectNode existing(String key, String name) {
        ObjectNode object = objects.get(key);
        if (object == null) {
            throw ApiError.notFound(type, name);
        }
        return object;
    }

    static String id(String group, String version, String plural) {
        return group + "/" + version + "/" + plural;
    }

    static String key(String namespace, String name) {
        return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
    }
}
