package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Secret;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.DynamicObject;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class KubernetesJsonTest {

    private final KubernetesJson json = KubernetesJson.defaults();

    @Test
    void decodesOfficialModelWithGsonNamesAndCustomTypes() {
        V1Pod pod = json.decode(Fixtures.bytes("pod.json"), V1Pod.class);

        assertThat(pod.getMetadata().getName()).isEqualTo("web-7d4b9c8f6d-x2k9p");
        assertThat(pod.getMetadata().getLabels()).containsEntry("tier", "frontend");
        assertThat(pod.getMetadata().getCreationTimestamp())
                .isEqualTo(OffsetDateTime.of(2024, 5, 1, 10, 0, 0, 0, ZoneOffset.UTC));
        var app = pod.getSpec().getContainers().get(0);
        assertThat(app.getLivenessProbe().getHttpGet().getPort()).isEqualTo(new IntOrString("http"));
        assertThat(app.getReadinessProbe().getHttpGet().getPort()).isEqualTo(new IntOrString(8080));
        assertThat(app.getResources().getRequests()).containsEntry("cpu", Quantity.fromString("250m"));
        assertThat(pod.getStatus().getContainerStatuses()).hasSize(2);
        assertThat(pod.getMetadata().getManagedFields().get(1).getSubresource()).isEqualTo("status");
    }

    @Test
    void roundTripsApiServerBytesExceptNulls() {
        byte[] original = Fixtures.bytes("pod.json");
        V1Pod pod = json.decode(original, V1Pod.class);

        JsonNode written = json.mapper().readTree(json.encode(pod));

        assertThat(written).isEqualTo(withoutNulls(json.mapper().readTree(original)));
    }

    @Test
    void listMetaContinueUsesItsSerializedName() {
        V1ListMeta meta = new V1ListMeta().resourceVersion("5")._continue("abc");
        String out = new String(json.encode(meta), StandardCharsets.UTF_8);
        assertThat(out).isEqualTo("{\"continue\":\"abc\",\"resourceVersion\":\"5\"}");
        assertThat(json.decode(out.getBytes(StandardCharsets.UTF_8), V1ListMeta.class).getContinue()).isEqualTo("abc");
    }

    @Test
    void toleratesUnknownFields() {
        byte[] newer = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"futureField\":{\"x\":[1,2]}},\"shinyNewThing\":true}"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(json.decode(newer, V1Pod.class).getMetadata().getName()).isEqualTo("a");
    }

    @Test
    void microTimeKeepsSixFractionDigitsAndTimeWholeSeconds() {
        String lease = "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{"
                + "\"creationTimestamp\":\"2024-05-01T10:00:00Z\",\"name\":\"l\"},\"spec\":{\"acquireTime\":\"2024-05-01T10:00:00.000000Z\","
                + "\"holderIdentity\":\"me\",\"renewTime\":\"2024-05-01T10:00:01.123456Z\"}}";
        V1Lease decoded = json.decode(lease.getBytes(StandardCharsets.UTF_8), V1Lease.class);
        assertThat(new String(json.encode(decoded), StandardCharsets.UTF_8)).isEqualTo(lease);

        String event = "{\"apiVersion\":\"v1\",\"eventTime\":\"2024-05-01T10:00:00.500000Z\",\"involvedObject\":{},"
                + "\"kind\":\"Event\",\"metadata\":{\"name\":\"e\"}}";
        CoreV1Event e = json.decode(event.getBytes(StandardCharsets.UTF_8), CoreV1Event.class);
        assertThat(json.mapper().readTree(json.encode(e))).isEqualTo(json.mapper().readTree(event));
    }

    @Test
    void byteArraysAreBase64() {
        String secret = "{\"apiVersion\":\"v1\",\"data\":{\"password\":\"aHVudGVyMg==\"},\"kind\":\"Secret\","
                + "\"metadata\":{\"name\":\"s\"},\"type\":\"Opaque\"}";
        V1Secret decoded = json.decode(secret.getBytes(StandardCharsets.UTF_8), V1Secret.class);
        assertThat(decoded.getData().get("password")).isEqualTo("hunter2".getBytes(StandardCharsets.UTF_8));
        assertThat(json.mapper().readTree(json.encode(decoded))).isEqualTo(json.mapper().readTree(secret));
    }

    @Test
    void emptyModelCollectionsAndNullsAreNotWritten() {
        assertThat(new String(json.encode(new V1Pod().metadata(null)), StandardCharsets.UTF_8)).isEqualTo("{}");
    }

    @Test
    void dynamicObjectKeepsEverything() {
        String cr = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\",\"namespace\":\"n\"},"
                + "\"spec\":{\"size\":3,\"tags\":[\"a\"]},\"status\":{\"ready\":true}}";
        DynamicObject widget = json.decode(cr.getBytes(StandardCharsets.UTF_8), DynamicObject.class);

        assertThat(widget.getKind()).isEqualTo("Widget");
        assertThat(widget.getMetadata().getNamespace()).isEqualTo("n");
        assertThat(widget.get("spec").get("size").asInt()).isEqualTo(3);
        assertThat(new String(json.encode(widget), StandardCharsets.UTF_8)).isEqualTo(cr);
    }

    @Test
    void invalidJsonNamesThePosition() {
        assertThatThrownBy(() -> json.decode("{\"kind\":\"Pod\",\n \"metadata\": {\"name\": x}}".getBytes(StandardCharsets.UTF_8),
                V1Pod.class))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("malformed JSON")
                .hasMessageContaining("line 2");
    }

    @Test
    void wrongShapeNamesTheType() {
        assertThatThrownBy(() -> json.decode("{\"metadata\":[1]}".getBytes(StandardCharsets.UTF_8), V1Pod.class))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("V1Pod");
    }

    /** Every model class can be introspected, written and read with gson and the annotation jars trimmed. */
    @Test
    void everyModelClassMapsBothWays() throws Exception {
        List<Class<?>> models = modelClasses();
        assertThat(models).hasSizeGreaterThan(500);
        for (Class<?> model : models) {
            Object instance = model.getConstructor().newInstance();
            byte[] written = json.encode(instance);
            assertThat(json.decode(written, model)).as(model.getName()).isNotNull();
        }
    }

    private static List<Class<?>> modelClasses() throws URISyntaxException, java.io.IOException, ClassNotFoundException {
        File jar = new File(V1Pod.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Class<?>> classes = new ArrayList<>();
        try (JarFile file = new JarFile(jar)) {
            Enumeration<JarEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                String name = entries.nextElement().getName();
                if (name.startsWith("io/kubernetes/client/openapi/models/") && name.endsWith(".class") && !name.contains("$")) {
                    Class<?> c = Class.forName(name.substring(0, name.length() - 6).replace('/', '.'));
                    if (!c.isEnum() && !c.isInterface() && !java.lang.reflect.Modifier.isAbstract(c.getModifiers())) {
                        classes.add(c);
                    }
                }
            }
        }
        return classes;
    }

    static JsonNode withoutNulls(JsonNode node) {
        if (node instanceof ObjectNode object) {
            ObjectNode copy = object.objectNode();
            for (Map.Entry<String, JsonNode> e : object.properties()) {
                if (!e.getValue().isNull()) {
                    copy.set(e.getKey(), withoutNulls(e.getValue()));
                }
            }
            return copy;
        }
        if (node.isArray()) {
            var copy = node.deepCopy();
            var array = (tools.jackson.databind.node.ArrayNode) copy;
            for (int i = 0; i < array.size(); i++) {
                array.set(i, withoutNulls(array.get(i)));
            }
            return array;
        }
        return node;
    }
}
