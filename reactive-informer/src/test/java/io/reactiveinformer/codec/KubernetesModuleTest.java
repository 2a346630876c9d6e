package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Probe;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1TCPSocketAction;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class KubernetesModuleTest {

    private static V1Pod pod() {
        return new V1Pod().apiVersion("v1").kind("Pod")
                .metadata(new V1ObjectMeta().name("web-0").namespace("shop").resourceVersion("42")
                        .creationTimestamp(OffsetDateTime.parse("2026-01-02T03:04:05Z")))
                .spec(new V1PodSpec().addContainersItem(new V1Container().name("web").image("nginx")
                        .addPortsItem(new V1ContainerPort().containerPort(8080))
                        .livenessProbe(new V1Probe().tcpSocket(new V1TCPSocketAction().port(new IntOrString(8080))))
                        .resources(new V1ResourceRequirements().limits(Map.of("cpu", new Quantity("500m"))))));
    }

    /** A mapper that writes nulls (as an application's may) still writes a model as the library does. */
    @Test
    void anyMapperWithTheModuleWritesModelsAsTheLibraryDoes() {
        JsonMapper plain = JsonMapper.builder().addModule(new KubernetesModule()).build();
        String library = new String(KubernetesJson.defaults().encode(pod()), StandardCharsets.UTF_8);

        String written = plain.writeValueAsString(pod());

        assertThat(written).isEqualTo(library);
        assertThat(written).contains("\"port\":8080", "\"cpu\":\"500m\"", "\"creationTimestamp\":\"2026-01-02T03:04:05Z\"")
                .doesNotContain("null", "\"number\"", "\"initContainers\"");
    }

    @Test
    void anyMapperWithTheModuleReadsWhatTheApiServerWrites() {
        JsonMapper plain = JsonMapper.builder().addModule(new KubernetesModule()).build();
        byte[] json = KubernetesJson.defaults().encode(pod());

        V1Pod read = plain.readValue(json, V1Pod.class);

        assertThat(read).isEqualTo(KubernetesJson.defaults().decode(json, V1Pod.class));
        assertThat(read.getSpec().getContainers().get(0).getLivenessProbe().getTcpSocket().getPort().getIntValue())
                .isEqualTo(8080);
        assertThat(read.getSpec().getContainers().get(0).getResources().getLimits().get("cpu"))
                .isEqualTo(new Quantity("500m"));
    }
}
