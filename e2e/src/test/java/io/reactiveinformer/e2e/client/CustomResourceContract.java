package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.ResourceClient;
import tools.jackson.databind.JsonNode;

/** The test custom resource ({@code testenv/crds/widgets.yaml}) as {@link DynamicObject}s, status subresource included. */
abstract class CustomResourceContract extends ClientContract {

    CustomResourceContract(Backend backend) {
        super(backend);
    }

    private ResourceClient<DynamicObject> widgets(String prefix) {
        return admin().resource(backend().widgets()).inNamespace(namespace(prefix));
    }

    private DynamicObject widget(String name, String spec) {
        return new DynamicObject("testenv.reactiveinformer.io/v1", "Widget", new V1ObjectMeta().name(name))
                .set("spec", json(spec));
    }

    private JsonNode json(String text) {
        return admin().json().mapper().readTree(text);
    }

    @Test
    void widgetRoundTripWithTheStatusSubresource() {
        ResourceClient<DynamicObject> widgets = widgets("widgets");

        DynamicObject created = await(widgets.create(widget("w1", "{\"size\":3,\"color\":\"blue\"}")));
        DynamicObject withStatus = await(widgets.replaceStatus(await(widgets.get("w1"))
                .set("spec", json("{\"size\":99}"))
                .set("status", json("{\"phase\":\"Ready\",\"observedGeneration\":1}"))));
        DynamicObject specPatched = await(widgets.patch("w1", PatchType.MERGE,
                "{\"spec\":{\"size\":4},\"status\":{\"phase\":\"Ignored\"}}"));
        DynamicObject statusPatched = await(widgets.patchStatus("w1", PatchType.MERGE,
                "{\"status\":{\"observedGeneration\":2}}"));
        List<DynamicObject> listed = await(widgets.list(ListOptions.none())).items();

        assertThat(created.getApiVersion()).isEqualTo("testenv.reactiveinformer.io/v1");
        assertThat(created.getKind()).isEqualTo("Widget");
        assertThat(created.getMetadata().getGeneration()).isEqualTo(1L);
        assertThat(created.get("spec")).isEqualTo(json("{\"size\":3,\"color\":\"blue\"}"));
        assertThat(withStatus.get("spec")).as("spec through status").isEqualTo(json("{\"size\":3,\"color\":\"blue\"}"));
        assertThat(withStatus.get("status")).isEqualTo(json("{\"phase\":\"Ready\",\"observedGeneration\":1}"));
        assertThat(withStatus.getMetadata().getGeneration()).isEqualTo(1L);
        assertThat(specPatched.get("spec").path("size").asInt()).isEqualTo(4);
        assertThat(specPatched.get("status").path("phase").asString()).as("status through the main resource")
                .isEqualTo("Ready");
        assertThat(specPatched.getMetadata().getGeneration()).isEqualTo(2L);
        assertThat(statusPatched.get("status")).isEqualTo(json("{\"phase\":\"Ready\",\"observedGeneration\":2}"));
        assertThat(listed).singleElement().isEqualTo(statusPatched);
        await(widgets.delete("w1"));
        assertThatThrownBy(() -> await(widgets.get("w1"))).isInstanceOf(KubernetesApiException.NotFound.class);
    }

    @Test
    void widgetsAreWatchedLikeAnyResource() {
        ResourceClient<DynamicObject> widgets = widgets("widgetwatch");
        String from = await(widgets.list(ListOptions.none())).resourceVersion();
        await(widgets.create(widget("a", "{\"size\":1}")));
        await(widgets.patch("a", PatchType.JSON_PATCH, "[{\"op\":\"replace\",\"path\":\"/spec/size\",\"value\":2}]"));
        await(widgets.delete("a"));

        List<WatchEvent<DynamicObject>> events = widgets.watch(WatchOptions.from(from).withTimeoutSeconds(2))
                .filter(e -> e.type() != WatchEvent.Type.BOOKMARK)
                .collectList().block(TIMEOUT);

        assertThat(events).extracting(ClientContract::describe).containsExactly("ADDED a", "MODIFIED a", "DELETED a");
        assertThat(events.get(1).object().get("spec")).isEqualTo(json("{\"size\":2}"));
    }
}
