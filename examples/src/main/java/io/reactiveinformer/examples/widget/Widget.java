package io.reactiveinformer.examples.widget;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ResourceType;
import java.util.List;

/**
 * The custom resource {@code examples.reactiveinformer.io/v1} {@code Widget} (its definition is
 * {@code widgets-crd.json} beside this class), bound by plain Jackson: a Widget asks for a Deployment of
 * {@code spec.replicas} and a ConfigMap holding {@code spec.message}. Mutable, as the official models are;
 * objects read from an informer's cache are shared and must not be changed.
 */
public final class Widget implements KubernetesObject {

    public static final String GROUP = "examples.reactiveinformer.io";
    public static final String API_VERSION = GROUP + "/v1";
    public static final String KIND = "Widget";
    public static final ResourceType<Widget> RESOURCE =
            ResourceType.namespaced(GROUP, "v1", "widgets", KIND, Widget.class);

    private String apiVersion = API_VERSION;
    private String kind = KIND;
    private V1ObjectMeta metadata;
    private Spec spec;
    private Status status;

    public Widget() {
    }

    /** A new Widget to create. */
    public static Widget of(String namespace, String name, int replicas, String message) {
        Widget widget = new Widget();
        widget.setMetadata(new V1ObjectMeta().namespace(namespace).name(name));
        Spec spec = new Spec();
        spec.setReplicas(replicas);
        spec.setMessage(message);
        widget.setSpec(spec);
        return widget;
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

    public Spec getSpec() {
        return spec;
    }

    public void setSpec(Spec spec) {
        this.spec = spec;
    }

    public Status getStatus() {
        return status;
    }

    public void setStatus(Status status) {
        this.status = status;
    }

    /** What the Widget asks for. */
    public static final class Spec {

        private Integer replicas;
        private String message;

        public Integer getReplicas() {
            return replicas;
        }

        public void setReplicas(Integer replicas) {
            this.replicas = replicas;
        }

        public String getMessage() {
            return message;
        }

        public void setMessage(String message) {
            this.message = message;
        }
    }

    /** What the operator reports: the generation it last acted on and its conditions ({@code Ready}). */
    public static final class Status {

        private Long observedGeneration;
        private List<V1Condition> conditions;

        public Long getObservedGeneration() {
            return observedGeneration;
        }

        public void setObservedGeneration(Long observedGeneration) {
            this.observedGeneration = observedGeneration;
        }

        public List<V1Condition> getConditions() {
            return conditions;
        }

        public void setConditions(List<V1Condition> conditions) {
            this.conditions = conditions;
        }
    }
}
