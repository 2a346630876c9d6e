package io.reactiveinformer.api;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.Objects;

/**
 * An object of any kind reduced to its metadata, as the API server sends it when asked for the
 * {@code PartialObjectMetadata} representation ({@code apiVersion: meta.k8s.io/v1}). A cache of these
 * holds names, labels, annotations, owner references and resource versions without the objects'
 * specs and statuses, which for Secrets, ConfigMaps or Pods are most of the bytes.
 *
 * <p>Mutable and not thread-safe, like the official models; objects handed out by a cache are shared
 * and must be treated as read-only.
 */
@JsonPropertyOrder({"apiVersion", "kind", "metadata"})
public final class PartialObjectMetadata implements KubernetesObject {

    /** The {@code apiVersion} of the representation, whatever the kind it describes. */
    public static final String API_VERSION = "meta.k8s.io/v1";
    public static final String KIND = "PartialObjectMetadata";

    private String apiVersion = API_VERSION;
    private String kind = KIND;
    private V1ObjectMeta metadata;

    public PartialObjectMetadata() {
    }

    public PartialObjectMetadata(V1ObjectMeta metadata) {
        this.metadata = metadata;
    }

    /**
     * {@code meta.k8s.io/v1}; a server that cannot produce the representation answers with the full
     * object, and then this is the object's own {@code apiVersion}.
     */
    @Override
    public String getApiVersion() {
        return apiVersion;
    }

    public void setApiVersion(String apiVersion) {
        this.apiVersion = apiVersion;
    }

    /** {@code PartialObjectMetadata}, or the object's own kind from a server without the representation. */
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

    @Override
    public boolean equals(Object o) {
        return o instanceof PartialObjectMetadata other && Objects.equals(apiVersion, other.apiVersion)
                && Objects.equals(kind, other.kind) && Objects.equals(metadata, other.metadata);
    }

    @Override
    public int hashCode() {
        return Objects.hash(apiVersion, kind, metadata);
    }

    @Override
    public String toString() {
        String ns = metadata == null ? null : metadata.getNamespace();
        String name = metadata == null ? null : metadata.getName();
        return "PartialObjectMetadata[" + (ns == null ? "" : ns + "/") + name
                + (metadata == null ? "" : " rv=" + metadata.getResourceVersion()) + "]";
    }
}
