package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
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
 * @param <T>           the object type
 */
public record InformerSpec<T extends KubernetesObject>(Class<T> type, String namespace, String labelSelector,
                                                       String fieldSelector, UnaryOperator<T> transform) {

    public InformerSpec {
        Objects.requireNonNull(type, "type");
        namespace = blankToNull(namespace);
        labelSelector = blankToNull(labelSelector);
        fieldSelector = blankToNull(fieldSelector);
    }

    /** All objects of {@code type} in all namespaces, untransformed. */
    public static <T extends KubernetesObject> InformerSpec<T> of(Class<T> type) {
        return new InformerSpec<>(type, null, null, null, null);
    }

    public InformerSpec<T> inNamespace(String namespace) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform);
    }

    public InformerSpec<T> withLabelSelector(String labelSelector) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform);
    }

    public InformerSpec<T> withFieldSelector(String fieldSelector) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform);
    }

    public InformerSpec<T> withTransform(UnaryOperator<T> transform) {
        return new InformerSpec<>(type, namespace, labelSelector, fieldSelector, transform);
    }

    /** A readable name, e.g. {@code V1Pod[namespace=default, labels=app=web]}. */
    public String displayName() {
        StringBuilder b = new StringBuilder(type.getSimpleName());
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
