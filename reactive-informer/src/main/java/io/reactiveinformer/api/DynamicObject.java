package io.reactiveinformer.api;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * Any Kubernetes object, typed where every object agrees ({@code apiVersion}, {@code kind},
 * {@code metadata}) and a Jackson tree for the rest ({@code spec}, {@code status}, {@code data}, ...).
 * For custom resources without a Java class and for kinds newer than the models.
 *
 * <p>Mutable and not thread-safe, like the official models; objects handed out by a cache are shared
 * and must be treated as read-only.
 */
@JsonPropertyOrder({"apiVersion", "kind", "metadata"})
public final class DynamicObject implements KubernetesObject {

    private String apiVersion;
    private String kind;
    private V1ObjectMeta metadata;
    private final Map<String, JsonNode> fields = new LinkedHashMap<>();

    public DynamicObject() {
    }

    public DynamicObject(String apiVersion, String kind, V1ObjectMeta metadata) {
        this.apiVersion = apiVersion;
        this.kind = kind;
        this.metadata = metadata;
    }

    @Override
    public String getApiVersion() {
        return apiVersion;
    }

    public void setApiVersion(String apiVersion) {
        this.apiVersion = apiVersion;
    }

    @Override
    public String getKind() {
        return kind;
    }

    public void setKind(String kind) {
        this.kind = kind;
    }

    @Override
    public V1ObjectMeta getMetadata() {
        return metadata;
    }

    public void setMetadata(V1ObjectMeta metadata) {
        this.metadata = metadata;
    }

    /** A top-level field other than apiVersion, kind and metadata, or {@code null}. */
    public JsonNode get(String field) {
        return fields.get(field);
    }

    /** Sets a top-level field other than apiVersion, kind and metadata; {@code null} removes it. */
    @JsonAnySetter
    public DynamicObject set(String field, JsonNode value) {
        if (value == null) {
            fields.remove(field);
        } else {
            fields.put(field, value);
        }
        return this;
    }

    /** The top-level fields other than apiVersion, kind and metadata, in document order (read-only view). */
    @JsonAnyGetter
    public Map<String, JsonNode> fields() {
        return Collections.unmodifiableMap(fields);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DynamicObject other && Objects.equals(apiVersion, other.apiVersion)
                && Objects.equals(kind, other.kind) && Objects.equals(metadata, other.metadata)
                && fields.equals(other.fields);
    }

    @Override
    public int hashCode() {
        return Objects.hash(apiVersion, kind, metadata, fields);
    }

    @Override
    public String toString() {
        String name = metadata == null ? null : metadata.getNamespace() == null ? metadata.getName()
                : metadata.getNamespace() + "/" + metadata.getName();
        return "DynamicObject{" + apiVersion + " " + kind + " " + name + " " + fields.keySet() + "}";
    }
}
