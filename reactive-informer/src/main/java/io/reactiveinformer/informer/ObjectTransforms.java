package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import java.util.function.UnaryOperator;

/** Ready-made informer transforms, as shared instances so that equal {@link InformerSpec}s share an informer. */
public final class ObjectTransforms {

    @SuppressWarnings("rawtypes")
    private static final UnaryOperator STRIP_MANAGED_FIELDS = object -> {
        KubernetesObject k = (KubernetesObject) object;
        if (k.getMetadata() != null) {
            k.getMetadata().setManagedFields(null);
        }
        return object;
    };

    private ObjectTransforms() {
    }

    /**
     * Drops {@code metadata.managedFields}, often the largest part of an object and rarely read by
     * controllers. Modifies the decoded object in place (it is not shared yet when the transform runs).
     */
    @SuppressWarnings("unchecked")
    public static <T extends KubernetesObject> UnaryOperator<T> stripManagedFields() {
        return STRIP_MANAGED_FIELDS;
    }
}
