package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;

/**
 * Stands in for {@code V1PartialObjectMetadata} (metadata-only lists and watches), which the official
 * models 27.0.0 do not ship: apiVersion, kind and metadata, nothing else.
 */
final class PartialObjectMetadata implements KubernetesObject {

    private final String apiVersion;
    private final String kind;
    private final V1ObjectMeta metadata;

    PartialObjectMetadata(String apiVersion, String kind, V1ObjectMeta metadata) {
        this.apiVersion = apiVersion;
        this.kind = kind;
        this.metadata = metadata;
    }

    @Override
    public V1ObjectMeta getMetadata() {
        return metadata;
    }

    @Override
    public String getApiVersion() {
        return apiVersion;
    }

    @Override
    public String getKind() {
        return kind;
    }
}
