package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.reactiveinformer.codec.KubernetesModule;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class NotificationModuleTest {

    private final JsonMapper mapper = JsonMapper.builder()
            .addModule(new KubernetesModule()).addModule(new NotificationModule()).build();

    private static V1Service service(String rv) {
        return new V1Service().metadata(new V1ObjectMeta().namespace("shop").name("web").resourceVersion(rv))
                .spec(new V1ServiceSpec().addPortsItem(new V1ServicePort().port(80).targetPort(new IntOrString(8080))));
    }

    @Test
    void everyNotificationHasItsDocumentedShape() {
        assertThat(mapper.writeValueAsString(new Notification.Added<>("shop/web", service("1"), true)))
                .isEqualTo("{\"type\":\"ADDED\",\"key\":\"shop/web\",\"object\":{\"metadata\":{\"name\":\"web\","
                        + "\"namespace\":\"shop\",\"resourceVersion\":\"1\"},\"spec\":{\"ports\":[{\"port\":80,"
                        + "\"targetPort\":8080}]}},\"flags\":{\"inInitialList\":true}}");
        assertThat(mapper.writeValueAsString(new Notification.Updated<>("shop/web", service("1"), service("2"), false)))
                .startsWith("{\"type\":\"UPDATED\",\"key\":\"shop/web\",\"object\":{\"metadata\":{\"name\":\"web\","
                        + "\"namespace\":\"shop\",\"resourceVersion\":\"2\"}")
                .contains("\"oldObject\":{\"metadata\":{\"name\":\"web\",\"namespace\":\"shop\",\"resourceVersion\":\"1\"}")
                .endsWith("\"flags\":{\"resync\":false}}");
        assertThat(mapper.writeValueAsString(new Notification.Deleted<>("shop/web", service("3"), true)))
                .startsWith("{\"type\":\"DELETED\",\"key\":\"shop/web\",\"object\":")
                .endsWith("\"flags\":{\"finalStateUnknown\":true}}");
        assertThat(mapper.writeValueAsString(new Notification.Synced<V1Service>()))
                .isEqualTo("{\"type\":\"SYNCED\",\"key\":\"\"}");
    }
}
