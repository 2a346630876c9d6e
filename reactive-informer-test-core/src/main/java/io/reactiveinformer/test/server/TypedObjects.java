package io.reactiveinformer.test.server;

import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.codec.KubernetesJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The typed view of a state that tests use: official models, CRD POJOs and {@link DynamicObject}s,
 * converted to and from the stored trees through the state's {@link KubernetesJson}. Writes go
 * through the state's tree API, so they are the same requests a client would make.
 *
 * <p>Threading: as the state. Lookups take the state's lock only to read the store; conversions run
 * outside it.
 */
final class TypedObjects {

    private final ClusterState state;
    private final ObjectStore store;
    private final KubernetesJson json;

    TypedObjects(ClusterState state, ObjectStore store, KubernetesJson json) {
        this.state = state;
        this.store = store;
        this.json = json;
    }

    @SuppressWarnings("unchecked")
    <T> T create(T object) {
        ResourceType<?> type = typeOf(object);
        ObjectNode tree = toTree(object);
        return (T) fromTree(state.create(type, tree.path("metadata").path("namespace").asString(null), tree),
                object.getClass());
    }

    /** PUT of the object, or of only its status. */
    @SuppressWarnings("unchecked")
    <T> T replace(T object, boolean statusOnly) {
        ResourceType<?> type = typeOf(object);
        ObjectNode tree = toTree(object);
        JsonNode meta = tree.path("metadata");
        return (T) fromTree(state.replace(type, meta.path("namespace").asString(null), meta.path("name").asString(null),
                tree, statusOnly), object.getClass());
    }

    void delete(Object object) {
        ObjectNode tree = toTree(object);
        JsonNode meta = tree.path("metadata");
        state.delete(typeOf(object), meta.path("namespace").asString(null), meta.path("name").asString(null));
    }

    <T> Optional<T> find(ResourceType<T> type, String namespace, String name) {
        ObjectNode tree;
        synchronized (state) {
            tree = store.registry().kind(type).objects.get(Kind.key(type.namespaced() ? namespace : null, name));
        }
        return Optional.ofNullable(tree).map(t -> fromTree(t, type.type()));
    }

    <T> List<T> list(ResourceType<T> type) {
        List<T> out = new ArrayList<>();
        for (ObjectNode tree : state.trees(type)) {
            out.add(fromTree(tree, type.type()));
        }
        return out;
    }

    ObjectNode toTree(Object object) {
        JsonNode tree = json.mapper().valueToTree(object);
        if (!tree.isObject()) {
            throw new IllegalArgumentException("not an object: " + object);
        }
        return (ObjectNode) tree;
    }

    <T> T fromTree(JsonNode tree, Class<T> type) {
        return json.mapper().treeToValue(tree, type);
    }

    /** The resource of a typed object: a {@link DynamicObject}'s by apiVersion and kind, else its class's. */
    private ResourceType<?> typeOf(Object object) {
        if (object instanceof DynamicObject dynamic) {
            synchronized (state) {
                return store.registry().byApiVersionAndKind(dynamic);
            }
        }
        return state.registeredType(object.getClass());
    }
}
