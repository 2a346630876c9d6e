package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.ShardSelector;
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
 * @param resource      where the objects live in the API, when {@code type} alone does not say (a custom
 *                      resource's POJO, {@link io.reactiveinformer.api.DynamicObject}); for a
 *                      metadata-only informer (type {@link PartialObjectMetadata}) the resource whose
 *                      objects' metadata it watches, in its {@linkplain ResourceType#metadataOnly()
 *                      metadata-only} form; {@code null} for an official model class, whose resource
 *                      is {@link ResourceType#of(Class)}
 * @param shardSelector only the objects of these hash ranges (one or several; KEP-5866), or {@code null}
 *                      for all: sent to the server, and applied on the client when the server ignores it
 *                      (see {@link InformerHealth#shardFilteringLocally()}), so the cache holds exactly them
 * @param <T>           the object type
 */
public record InformerSpec<T extends KubernetesObject>(Class<T> type, String namespace, String labelSelector,
                                                       String fieldSelector, UnaryOperator<T> transform,
                                                       ResourceType<?> resource, ShardSelector shardSelector) {

    public InformerSpec {
        Objects.requireNonNull(type, "type");
        if (resource != null && resource.type() != type) {
            throw new IllegalArgumentException(resource.isMetadataOnly()
                    ? "a metadata-only informer holds PartialObjectMetadata, not " + type.getName()
                    : "resource " + resource.plural() + " decodes to " + resource.type().getName() + ", not "
                            + type.getName());
        }
        namespace = blankToNull(namespace);
        labelSelector = blankToNull(labelSelector);
        fieldSelector = blankToNull(fieldSelector);
    }

    /** A spec of objects of {@code type} as they are (not metadata-only). */
    public InformerSpec(Class<T> type, String namespace, String labelSelector, String fieldSelector,
                        UnaryOperator<T> transform) {
        this(type, namespace, labelSelector, fieldSelector, transform, null, null);
    }

    /** A spec of all shards. */
    public InformerSpec(Class<T> type, String namespace, String labelSelector, String fieldSelector,
                        UnaryOperator<T> transform, ResourceType<?> resource) {
        this(type, namespace, labelSelector, fieldSelector, transform, resource, null);
    }

    /** All objects of {@code type} in all namespaces, untransformed. */
    public static <T extends KubernetesObject> InformerSpec<T> of(Class<T> type) {
        return new InformerSpec<>(type, null, null, null, null);
    }

    /**
     * All objects of {@code resource} in all namespaces, untransformed: a custom resource with its own
     * POJO ({@code ResourceType.namespaced("example.com", "v1", "widgets", "Widget", Widget.class)}) or
     * any resource as {@link io.reactiveinformer.api.DynamicObject}s ({@link ResourceType#dynamic}).
     */
    public static <T extends KubernetesObject> InformerSpec<T> of(ResourceType<T> resource) {
        return new InformerSpec<>(resource.type(), null, null, null, null, resource);
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
        return resource != null && resource.isMetadataOnly();
    }

    /** For a metadata-only informer, the resource whose objects' metadata it watches; {@code null} otherwise. */
    @SuppressWarnings("unchecked")
    public ResourceType<PartialObjectMetadata> metadataOf() {
        return isMetadataOnly() ? (ResourceType<PartialObjectMetadata>) resource : null;
    }

    public InformerSpec<T> inNamespace(String namespace) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform, resource, shardSelector);
    }

    public InformerSpec<T> withLabelSelector(String labelSelector) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform, resource, shardSelector);
    }

    public InformerSpec<T> withFieldSelector(String fieldSelector) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform, resource, shardSelector);
    }

    public InformerSpec<T> withTransform(UnaryOperator<T> transform) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform, resource, shardSelector);
    }

    /** Only the objects {@code shardSelector} selects, e.g. {@code ShardSelector.shard(Key.UID, 0, 3)}. */
    public InformerSpec<T> withShardSelector(ShardSelector shardSelector) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform, resource, shardSelector);
    }

    /**
     * A readable name, e.g. {@code V1Pod[namespace=default, labels=app=web]}, or
     * {@code PartialObjectMetadata(pods)[...]} for a metadata-only informer, {@code Widget(example.com/widgets)}
     * for one whose resource is given.
     */
    public String displayName() {
        StringBuilder b = new StringBuilder(type.getSimpleName());
        if (resource != null) {
            b.append('(').append(resource.group().isEmpty() ? "" : resource.group() + "/")
                    .append(resource.plural()).append(')');
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
        if (shardSelector != null) {
            b.append(sep).append("shards=").append(shardSelector);
            sep = ", ";
        }
        return sep.equals("[") ? b.toString() : b.append(']').toString();
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
