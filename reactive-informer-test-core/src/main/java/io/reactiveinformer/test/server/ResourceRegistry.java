package io.reactiveinformer.test.server;

import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** The resources a state serves, by {@code group/version/plural}, in registration order. Guarded by the state's lock. */
final class ResourceRegistry {

    private final Map<String, Kind> kinds = new LinkedHashMap<>();
    private final int historyLimit;

    ResourceRegistry(int historyLimit) {
        this.historyLimit = historyLimit;
    }

    /**
     * Registers {@code type} unless already there; a new resource's history starts at {@code compactedTo}.
     * {@code schema}: a custom resource's schema from its definition, or null.
     */
    void register(ResourceType<?> type, boolean statusSubresource, Schema schema, long compactedTo) {
        kinds.putIfAbsent(Kind.id(type.group(), type.version(), type.plural()),
                new Kind(type, statusSubresource, schema, historyLimit, compactedTo));
    }

    Optional<Kind> find(String group, String version, String plural) {
        return Optional.ofNullable(kinds.get(Kind.id(group, version, plural)));
    }

    /** The kind of {@code type}; 404 when it is not registered. */
    Kind kind(ResourceType<?> type) {
        return find(type.group(), type.version(), type.plural()).orElseThrow(ApiError::pathNotFound);
    }

    List<Kind> all() {
        return new ArrayList<>(kinds.values());
    }

    /** The registered resource of a model class, or empty. */
    @SuppressWarnings("unchecked")
    <T> Optional<ResourceType<T>> byModel(Class<T> model) {
        for (Kind kind : kinds.values()) {
            if (kind.type.type() == model) {
                return Optional.of((ResourceType<T>) kind.type);
            }
        }
        return Optional.empty();
    }

    /** The resource a {@link DynamicObject} names by apiVersion and kind. */
    ResourceType<?> byApiVersionAndKind(DynamicObject dynamic) {
        String apiVersion = Objects.requireNonNull(dynamic.getApiVersion(), "apiVersion");
        for (Kind kind : kinds.values()) {
            if (kind.type.apiVersion().equals(apiVersion) && kind.type.kind().equals(dynamic.getKind())) {
                return kind.type;
            }
        }
        throw new IllegalArgumentException("no resource registered for " + apiVersion + " " + dynamic.getKind());
    }
}
