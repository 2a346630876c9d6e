package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1EventSource;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Secret;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.ResourceClient;
import reactor.test.StepVerifier;

/** Field selectors on the fields each kind supports, in LIST and WATCH; others answer 400. */
abstract class FieldSelectorContract extends ClientContract {

    static final ResourceType<CoreV1Event> EVENTS = ResourceType.namespaced("", "v1", "events", "Event", CoreV1Event.class);

    FieldSelectorContract(Backend backend) {
        super(backend);
    }

    @Test
    void podsBySpecAndStatusFieldsInListAndWatch() {
        ResourceClient<V1Pod> pods = admin().resource(V1Pod.class).inNamespace(namespace("fields-pods"));
        await(pods.create(DeleteContract.pod("on-a", "node-a")));
        await(pods.create(DeleteContract.pod("on-b", "node-b")));
        await(pods.create(DeleteContract.pod("unscheduled", null)));
        await(pods.patchStatus("on-b", PatchType.MERGE, "{\"status\":{\"phase\":\"Running\"}}"));

        assertThat(names(pods.withFieldSelector("spec.nodeName=node-a"))).containsExactly("on-a");
        assertThat(names(pods.withFieldSelector("spec.nodeName="))).containsExactly("unscheduled");
        assertThat(names(pods.withFieldSelector("status.phase=Running"))).containsExactly("on-b");
        assertThat(names(pods.withFieldSelector("status.phase!=Running,spec.restartPolicy=Always")))
                .containsExactly("on-a", "unscheduled");
        assertThat(names(pods.withFieldSelector("spec.schedulerName=default-scheduler,status.podIP=")))
                .containsExactly("on-a", "on-b", "unscheduled");

        ResourceClient<V1Pod> onA = pods.withFieldSelector("spec.nodeName=node-a");
        String rv = await(onA.list(ListOptions.none())).resourceVersion();
        StepVerifier.create(onA.watch(WatchOptions.from(rv)))
                .then(() -> {
                    await(pods.create(DeleteContract.pod("later-on-b", "node-b")));
                    await(pods.create(DeleteContract.pod("later-on-a", "node-a")));
                })
                .assertNext(e -> assertThat(describe(e)).isEqualTo("ADDED later-on-a"))
                .thenCancel()
                .verify(TIMEOUT);
    }

    @Test
    void secretsByTypeEventsByInvolvedObjectAndNamespacesByPhase() {
        String ns = namespace("fields-other");
        ResourceClient<V1Secret> secrets = admin().resource(V1Secret.class).inNamespace(ns);
        await(secrets.create(new V1Secret().metadata(new V1ObjectMeta().name("plain")).stringData(Map.of("k", "v"))));
        await(secrets.create(new V1Secret().metadata(new V1ObjectMeta().name("custom")).type("example.com/custom")));
        ResourceClient<CoreV1Event> events = admin().resource(EVENTS).inNamespace(ns);
        await(events.create(event(ns, "e1", "web-1", "Started", "Normal")));
        await(events.create(event(ns, "e2", "web-2", "BackOff", "Warning")));

        assertThat(names(secrets.withFieldSelector("type=example.com/custom"))).containsExactly("custom");
        assertThat(names(secrets.withFieldSelector("type=Opaque"))).containsExactly("plain");
        assertThat(names(events.withFieldSelector("involvedObject.name=web-1"))).containsExactly("e1");
        assertThat(names(events.withFieldSelector("involvedObject.kind=Pod,reason=BackOff,type=Warning")))
                .containsExactly("e2");
        assertThat(names(events.withFieldSelector("source=e2e-test,involvedObject.namespace=" + ns)))
                .containsExactly("e1", "e2");
        assertThat(names(admin().resource(V1Namespace.class).withFieldSelector("status.phase=Active,metadata.name=" + ns)))
                .containsExactly(ns);
    }

    @Test
    void unsupportedFieldsAreBadRequestsWithTheServersMessage() {
        String ns = namespace("fields-bad");

        assertThatThrownBy(() -> await(admin().resource(V1Pod.class).inNamespace(ns)
                .withFieldSelector("spec.containers=x").list(ListOptions.none())))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("field label not supported: spec.containers");
                });
        assertThatThrownBy(() -> await(configMaps(ns).withFieldSelector("data.a=x").list(ListOptions.none())))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("\"data.a\" is not a known field selector: only "
                            + "\"metadata.name\", \"metadata.namespace\"");
                });
        assertThatThrownBy(() -> configMaps(ns).withFieldSelector("data.a=x").watch(WatchOptions.from("")).blockFirst(TIMEOUT))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.code()).isEqualTo(400));
    }

    private static CoreV1Event event(String ns, String name, String pod, String reason, String type) {
        return new CoreV1Event().metadata(new V1ObjectMeta().name(name))
                .involvedObject(new V1ObjectReference().kind("Pod").namespace(ns).name(pod).apiVersion("v1"))
                .reason(reason).type(type).message("e2e").source(new V1EventSource().component("e2e-test"));
    }

    private static <T extends KubernetesObject> List<String> names(ResourceClient<T> client) {
        return await(client.list(ListOptions.none())).items().stream().map(o -> o.getMetadata().getName()).toList();
    }
}
