package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import java.util.TreeMap;
import tools.jackson.databind.node.ObjectNode;

/** One registered resource and its current objects by key, in key order as etcd returns them. */
final class Kind {

    final ResourceType<?> type;
    final boolean statusSubresource;
    final TreeMap<String, ObjectNode> objects = new TreeMap<>();

    Kind(ResourceType<?> type, boolean statusSubresource) {
        this.type = type;
        this.statusSubresource = statusSubresource;
    }

    static String id(String group, String version, String plural) {
        return group + "/" + version + "/" + plural;
    }

    String id() {
        return id(type.group(), type.version(), type.plural());
    }

    static String key(String namespace, String name) {
        return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
    }
}
