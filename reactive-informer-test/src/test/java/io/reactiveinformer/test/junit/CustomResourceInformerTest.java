package io.reactiveinformer.test.junit;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The factory builds, starts, syncs and shuts down informers of custom resources, typed and dynamic. */
@ExtendWith(SimulatedApiServerExtension.class)
class CustomResourceInformerTest {

    private static final Duration T = Duration.ofSeconds(10);
    private static final ResourceType<Widget> WIDGETS =
            ResourceType.namespaced("example.com", "v1", "widgets", "Widget", Widget.class);

    /** A custom resource's POJO, mapped by plain Jackson. */
    public static final class Widget implements KubernetesObject {
        private String apiVersion = "example.com/v1";
        private String kind = "Widget";
        private V1ObjectMeta metadata;
        private int size;

        public Widget() {
        }

        Widget(String name, int size) {
            this.metadata = new V1ObjectMeta().namespace("default").name(name);
            this.size = size;
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

        public int getSize() {
            return size;
        }

        public void setSize(int size) {
            this.size = size;
        }
    }

    @Test
    void typedAndDynamicInformersOfACustomResource(SimulatedApiServer server, KubernetesClient client) {
        server.state().register(WIDGETS);
        client.resource(WIDGETS).create(new Widget("small", 1)).block(T);
        client.resource(WIDGETS).create(new Widget("large", 9)).block(T);
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        ResourceType<DynamicObject> dynamic = ResourceType.dynamic("example.com", "v1", "widgets", "Widget", true);
        try {
            SharedIndexInformer<Widget> typed = factory.informer(WIDGETS);
            SharedIndexInformer<DynamicObject> untyped = factory.informer(dynamic);
            assertThat(factory.informer(WIDGETS)).isSameAs(typed);
            assertThat(typed.name()).isEqualTo("Widget(example.com/widgets)");

            factory.start();
            factory.waitForCacheSync().block(T);

            assertThat(typed.lister().namespace("default").get("large").orElseThrow().getSize()).isEqualTo(9);
            assertThat(untyped.lister().namespace("default").get("small").orElseThrow().get("size").asInt())
                    .isEqualTo(1);
        } finally {
            factory.shutdown().block(T);
        }
        assertThat(factory.informers()).allMatch(SharedIndexInformer::isStopped);
    }
}
