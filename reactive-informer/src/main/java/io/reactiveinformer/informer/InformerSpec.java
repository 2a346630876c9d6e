package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.ResourceType;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * What an informer watches and how it shapes the objects: its identity. A {@link SharedInformerFactory}
 * holds at most one informer per equal spec.
 *
 * <p>Transforms compare by {@code equals}, which for lambdas is identity: share an informer by passing
 * the same transform instance (e.g. {@link ObjectTransforms#stripManagedFields()}).
 *
 * @param type          the object type
 * @param namespace     the namespace, or {@code null} for all namespaces (or cluster-scoped objects)
 * @param labelSelector e.g. {@code app=web}, or {@code null}
 * @param fieldSelector e.g. {@code spec.nodeName=n1}, or {@code null}
 * @param transform     applied once to each object before it is cached, or {@code null} for none; it
 *                      must keep the object's namespace and name
 * @param metadataOf    for a metadata-only informer (type {@link PartialObjectMetadata}), the resource
 *                      whose objects' metadata it watches (normalized to its
 *                      {@linkplain ResourceType#metadataOnly() metadata-only} form); {@code null} otherwise
 * @param <T>           the object type
 */
public record InformerSpec<T extends KubernetesObject>(Class<T> type, String namespace, String labelSelector,
                                                       String fieldSelector, UnaryOperator<T> transform,
                                                       ResourceType<PartialObjectMetadata> metadataOf) {

    public InformerSpec {
        Objects.requireNonNull(type, "type");
        if (metadataOf != null && type != PartialObjectMetadata.class) {
            throw new IllegalArgumentException("a metadata-only informer holds PartialObjectMetadata, not " + type.getName());
        }
        metadataOf = metadataOf == null ? null : metadataOf.metadataOnly();
        namespace = blankToNull(namespace);
        labelSelector = blankToNull(labelSelector);
        fieldSelector = blankToNull(fieldSelector);
    }

    /** A spec of objects of {@code type} as they are (not metadata-only). */
    public InformerSpec(Class<T> type, String namespace, String labelSelector, String fieldSelector,
                        UnaryOperator<T> transform) {
        this(type, namespace, labelSelector, fieldSelector, transform, null);
    }

    /** All objects of {@code type} in all namespaces, untransformed. */
    public static <T extends KubernetesObject> InformerSpec<T> of(Class<T> type) {
        return new InformerSpec<>(type, null, null, null, null);
    }

    /**
     * The metadata of all objects of an official model class ({@code V1Secret.class}) in all
     * namespaces, cached as {@link PartialObjectMetadata}: client-go's metadata informer. Its identity
     * differs from the full informer of the same kind.
     */
    public static InformerSpec<PartialObjectMetadata> metadataOnly(Class<? extends KubernetesObject> model) {
        return metadataOnly(ResourceType.of(model));
    }

    /** The metadata of all objects of {@code resource} (a custom resource, say) in all namespaces. */
    public static InformerSpec<PartialObjectMetadata> metadataOnly(ResourceType<?> resource) {
        return new InformerSpec<>(PartialObjectMetadata.class, null, null, null, null, resource.metadataOnly());
    }

    /** Whether this informer caches only the objects' metadata (see {@link #metadataOf()}). */
    public boolean isMetadataOnly() {
        return metadataOf != null;
    }

    public InformerSpec<T> inNamespace(String namespace) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform, metadataOf);
    }

    public InformerSpec<T> withLabelSelector(String labelSelector) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform, metadataOf);
    }

    public InformerSpec<T> withFieldSelector(String fieldSelector) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform, metadataOf);
    }

    public InformerSpec<T> withTransform(UnaryOperator<T> transform) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform, metadataOf);
    }

    /**
     * A readable name, e.g. {@code V1Pod[namespace=default, labels=app=web]}, or
     * {@code PartialObjectMetadata(pods)[...]} for a metadata-only informer.
     */
    public String displayName() {
        StringBuilder b = new StringBuilder(type.getSimpleName());
        if (metadataOf != null) {
            b.append('(').append(metadataOf.group().isEmpty() ? "" : metadataOf.group() + "/")
                    .append(metadataOf.plural()).append(')');
        }
        String sep = "[";
        if (namespace != null) {
            b.append(sep).append("namespace=").append(namespace);
            sep = ", ";
        }
        if (labelSelector != null) {
            b.append(sep).append("labels=").append(labelSelector);
            sep = ", ";
        }
        if (fieldSelector != null) {
            b.append(sep).append("fields=").append(fieldSelector);
            sep = ", ";
        }
        return sep.equals("[") ? b.toString() : b.append(']').toString();
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
