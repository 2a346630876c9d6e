package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The protobuf decode of an object equals the JSON decode of the same object, both as kube-apiserver 1.36
 * wrote them ({@code fixtures/protobuf}, captured by its {@code capture.sh} from {@code corpus.yaml}).
 */
class ProtobufEquivalenceTest {

    private final KubernetesJson json = KubernetesJson.defaults();
    private final ProtobufCodec protobuf = new ProtobufCodec(json);

    static Stream<Arguments> corpus() {
        return Stream.of(
                Arguments.of("configmap", V1ConfigMap.class),
                Arguments.of("secret", V1Secret.class),
                Arguments.of("service", V1Service.class),
                Arguments.of("pod", V1Pod.class),
                Arguments.of("node", V1Node.class),
                Arguments.of("namespace", V1Namespace.class),
                Arguments.of("deployment", V1Deployment.class),
                Arguments.of("replicaset", V1ReplicaSet.class),
                Arguments.of("event", CoreV1Event.class),
                Arguments.of("events-event", EventsV1Event.class),
                Arguments.of("lease", V1Lease.class),
                Arguments.of("podlist", V1PodList.class),
                Arguments.of("configmaplist", V1ConfigMapList.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void decodesWhatTheJsonPathDecodes(String name, Class<?> type) {
        Object fromJson = json.decode(Fixtures.bytes("protobuf/" + name + ".json"), type);
        Object fromProtobuf = protobuf.decode(Fixtures.bytes("protobuf/" + name + ".pb"), type);

        // field by field first, for a readable difference; byte[] values (secrets, binaryData) compare by content
        assertThat(fromProtobuf).usingRecursiveComparison().isEqualTo(fromJson);
        if (!name.equals("secret") && !name.startsWith("configmap")) {
            assertThat(fromProtobuf).isEqualTo(fromJson);
        }
    }

    @Test
    void keepsTimestampPrecisionAsJsonDoes() {
        EventsV1Event event = protobuf.decode(Fixtures.bytes("protobuf/events-event.pb"), EventsV1Event.class);
        V1Pod pod = protobuf.decode(Fixtures.bytes("protobuf/pod.pb"), V1Pod.class);

        assertThat(event.getEventTime()).hasToString("2026-01-02T03:04:05.123456Z"); // MicroTime
        assertThat(event.getSeries().getLastObservedTime()).hasToString("2026-01-02T03:05:06.654321Z");
        assertThat(pod.getStatus().getStartTime()).hasToString("2026-01-02T03:04:05Z"); // Time
    }

    @Test
    void canonicalisesStringsAsTheJsonPathDoes() {
        V1PodList list = protobuf.decode(Fixtures.bytes("protobuf/podlist.pb"), V1PodList.class);
        V1Pod pod = protobuf.decode(Fixtures.bytes("protobuf/pod.pb"), V1Pod.class);

        assertThat(pod.getMetadata().getNamespace()).isSameAs(list.getItems().get(0).getMetadata().getNamespace());
        assertThat(pod.getSpec().getContainers().get(0).getImage())
                .isSameAs(list.getItems().get(0).getSpec().getContainers().get(0).getImage());
    }

    @ParameterizedTest(name = "chunks of {0} bytes")
    @ValueSource(ints = {1, 3, 7, 64, 100_000})
    void decodesAWatchStreamSplitAnywhere(int chunkSize) {
        List<ProtobufWatchFrames.Event> events = new ArrayList<>();
        ProtobufWatchFrames frames = new ProtobufWatchFrames(protobuf, V1ConfigMap.class);
        byte[] stream = Fixtures.bytes("protobuf/configmap-watch.pb");
        for (int at = 0; at < stream.length; at += chunkSize) {
            frames.feed(ByteBuffer.wrap(stream, at, Math.min(stream.length - at, chunkSize)), events::add);
        }
        frames.end();

        List<String> lines = new String(Fixtures.bytes("protobuf/configmap-watch.json"), StandardCharsets.UTF_8)
                .lines().toList();
        assertThat(events).hasSameSizeAs(lines).isNotEmpty();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String object = line.substring(line.indexOf("\"object\":") + "\"object\":".length(), line.lastIndexOf('}'));
            assertThat(events.get(i).type()).isEqualTo(line.substring(9, line.indexOf('"', 9)));
            assertThat(events.get(i).object()).usingRecursiveComparison()
                    .isEqualTo(json.decode(object.getBytes(StandardCharsets.UTF_8), V1ConfigMap.class));
        }
    }

    @Test
    void coversTheTopLevelKindsOfTheCorpus() {
        assertThat(corpus().map(a -> (Class<?>) a.get()[1])).allMatch(ProtobufCodec::supports);
        assertThat(ProtoDecoders.type(V1Pod.class).kind()).isEqualTo("Pod");
        assertThat(ProtoDecoders.type(CoreV1Event.class).kind()).isEqualTo("Event");
        assertThat(ProtobufCodec.supports(String.class)).isFalse();
    }
}
