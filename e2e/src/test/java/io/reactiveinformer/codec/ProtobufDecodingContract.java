package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.reactiveinformer.api.PartialObjectMetadata;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The protobuf decoders against a server: objects of the built-in kinds are created, then read over raw HTTP
 * in JSON and in protobuf, and the two decodes must be equal; a protobuf watch decodes to the events the JSON
 * watch of the same resource version gives. Run against kube-apiserver itself
 * ({@link ProtobufOnKubeApiServerTest}) and against the test kit's simulated server
 * ({@link ProtobufOnSimulatedServerTest}), whose protobuf encoder it checks with decoders it does not share.
 * Raw HTTP, not the client, so that each encoding is asked for explicitly (the client negotiates, and falls
 * back); in the codec's package because the watch frames' constructor is package-private.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ProtobufDecodingContract {

    private static final String PROTOBUF = "application/vnd.kubernetes.protobuf";
    private static final String AS_METADATA = "as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final URI server;
    private final HttpClient http;
    private final KubernetesJson json = KubernetesJson.defaults();
    private final ProtobufCodec protobuf = new ProtobufCodec(json);
    private final String ns = "protobuf-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);

    ProtobufDecodingContract(URI server, HttpClient http) {
        this.server = server;
        this.http = http;
        create("/api/v1/namespaces", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + ns + "\"}}");
        String at = "/namespaces/" + ns;
        create("/api/v1" + at + "/configmaps", """
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","labels":{"app":"web"},
                 "annotations":{"note":"ünïcödé ✓"}},"data":{"a":"1","empty":""},"binaryData":{"blob":"AAEC/w=="}}""");
        create("/api/v1" + at + "/configmaps", """
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"},"data":{"b":"2"}}""");
        create("/api/v1" + at + "/secrets", """
                {"apiVersion":"v1","kind":"Secret","metadata":{"name":"credentials"},"type":"Opaque",
                 "data":{"password":"c2VjcmV0","empty":""}}""");
        create("/api/v1" + at + "/services", """
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"selector":{"app":"web"},
                 "ports":[{"name":"http","port":80,"targetPort":"http"},{"name":"m","port":9090,"targetPort":9091}]}}""");
        create("/api/v1" + at + "/pods", """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","labels":{"app":"web"}},"spec":{
                 "tolerations":[{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],
                 "volumes":[{"name":"config","configMap":{"name":"settings","defaultMode":420}}],
                 "containers":[{"name":"web","image":"nginx:1.27","ports":[{"name":"http","containerPort":8080}],
                  "env":[{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
                  "resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"1.5","memory":"1Gi"}},
                  "readinessProbe":{"httpGet":{"path":"/ready","port":"http"}},
                  "volumeMounts":[{"name":"config","mountPath":"/etc/app","readOnly":true}]}]}}""");
        create("/apis/apps/v1" + at + "/deployments", """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":0,
                 "selector":{"matchLabels":{"app":"web"}},
                 "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
                 "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}""");
        create("/apis/apps/v1" + at + "/replicasets", """
                {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-1"},"spec":{"replicas":2,
                 "selector":{"matchLabels":{"app":"web"}},
                 "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}""");
        create("/api/v1" + at + "/events", """
                {"apiVersion":"v1","kind":"Event","metadata":{"name":"web-0.a"},"reason":"Scheduled","type":"Normal",
                 "involvedObject":{"kind":"Pod","name":"web-0","namespace":"%s"},"count":3,
                 "firstTimestamp":"2026-01-02T03:04:05Z"}""".formatted(ns));
        create("/apis/events.k8s.io/v1" + at + "/events", """
                {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"web-0.b"},"reason":"Pulled",
                 "eventTime":"2026-01-02T03:04:05.123456Z","reportingController":"kubelet","reportingInstance":"a",
                 "action":"Pulling","type":"Normal","regarding":{"kind":"Pod","name":"web-0","namespace":"%s"}}"""
                .formatted(ns));
        create("/apis/coordination.k8s.io/v1" + at + "/leases", """
                {"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"leader"},"spec":{
                 "holderIdentity":"a","leaseDurationSeconds":15,"renewTime":"2026-01-02T03:04:20.500000Z"}}""");
    }

    Stream<Arguments> objects() {
        String at = "/namespaces/" + ns;
        return Stream.of(
                Arguments.of("/api/v1" + at + "/configmaps/settings", V1ConfigMap.class),
                Arguments.of("/api/v1" + at + "/secrets/credentials", V1Secret.class),
                Arguments.of("/api/v1" + at + "/services/web", V1Service.class),
                Arguments.of("/api/v1" + at + "/pods/web-0", V1Pod.class),
                Arguments.of("/api/v1" + at + "/pods", V1PodList.class),
                Arguments.of("/api/v1" + at + "/configmaps", V1ConfigMapList.class),
                Arguments.of("/api/v1/namespaces/" + ns, V1Namespace.class),
                Arguments.of("/apis/apps/v1" + at + "/deployments/web", V1Deployment.class),
                Arguments.of("/apis/apps/v1" + at + "/replicasets/web-1", V1ReplicaSet.class),
                Arguments.of("/api/v1" + at + "/events/web-0.a", CoreV1Event.class),
                Arguments.of("/apis/events.k8s.io/v1" + at + "/events/web-0.b", EventsV1Event.class),
                Arguments.of("/apis/coordination.k8s.io/v1" + at + "/leases/leader", V1Lease.class));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("objects")
    void protobufDecodesToWhatJsonDecodesTo(String path, Class<?> type) {
        Object fromJson = json.decode(get(path, "application/json"), type);
        Object fromProtobuf = protobuf.decode(get(path, PROTOBUF), type);

        assertSameObject(fromProtobuf, fromJson);
    }

    /** How the protobuf decode compares to the JSON decode of the same object: on kube-apiserver, equal. */
    void assertSameObject(Object fromProtobuf, Object fromJson) {
        assertThat(fromProtobuf).usingRecursiveComparison().isEqualTo(fromJson);
    }

    Stream<Arguments> metadataOnly() {
        String at = "/namespaces/" + ns;
        return Stream.of(
                Arguments.of("/api/v1" + at + "/configmaps/settings"),
                Arguments.of("/api/v1" + at + "/pods/web-0"),
                Arguments.of("/apis/apps/v1" + at + "/deployments/web"));
    }

    /** {@code meta.k8s.io/v1 PartialObjectMetadata}, which the server has in protobuf for every kind. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("metadataOnly")
    void metadataInProtobufDecodesToWhatItsJsonDecodesTo(String path) {
        PartialObjectMetadata fromJson = json.decode(get(path, "application/json;" + AS_METADATA, "application/json"),
                PartialObjectMetadata.class);
        PartialObjectMetadata fromProtobuf = protobuf.decode(get(path, PROTOBUF + ";" + AS_METADATA, PROTOBUF),
                PartialObjectMetadata.class);

        assertThat(fromProtobuf.getKind()).isEqualTo(PartialObjectMetadata.KIND);
        assertThat(fromProtobuf.getMetadata().getName()).isEqualTo(path.substring(path.lastIndexOf('/') + 1));
        assertSameObject(fromProtobuf, fromJson);
    }

    @Test
    void aProtobufWatchDecodesToTheEventsOfTheJsonWatch() throws IOException {
        assertWatchesDecodeAlike(PROTOBUF + ";stream=watch", "application/json", V1ConfigMap.class);
    }

    @Test
    void aProtobufMetadataWatchDecodesToTheEventsOfTheJsonOne() throws IOException {
        // as client-go's metadata client asks, without stream=watch
        assertWatchesDecodeAlike(PROTOBUF + ";" + AS_METADATA, "application/json;" + AS_METADATA,
                PartialObjectMetadata.class);
    }

    /** The configmaps watched in protobuf and in JSON, decoded as {@code type}s. */
    private void assertWatchesDecodeAlike(String protobufAccept, String jsonAccept, Class<?> type) throws IOException {
        String watch = "/api/v1/namespaces/" + ns + "/configmaps?watch=true&resourceVersion=0";
        // kube-root-ca.crt (published into every namespace once its controller runs) may or may not be there:
        // count what this resource version holds, and read as many events from each watch
        int count = json.decode(get("/api/v1/namespaces/" + ns + "/configmaps", "application/json"),
                V1ConfigMapList.class).getItems().size();

        List<ProtobufWatchFrames.Event> events = new ArrayList<>();
        try (InputStream body = stream(watch, protobufAccept)) {
            ProtobufWatchFrames frames = new ProtobufWatchFrames(protobuf, type);
            DataInputStream in = new DataInputStream(body);
            while (events.size() < count) {
                byte[] frame = new byte[4 + in.readInt()];
                ByteBuffer.wrap(frame).putInt(frame.length - 4);
                in.readFully(frame, 4, frame.length - 4);
                frames.feed(ByteBuffer.wrap(frame), events::add);
            }
            frames.end();
        }
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(stream(watch, jsonAccept),
                StandardCharsets.UTF_8))) {
            while (lines.size() < count) {
                lines.add(in.readLine());
            }
        }

        assertThat(events).hasSize(count).allMatch(e -> e.type().equals("ADDED"));
        for (int i = 0; i < count; i++) {
            String line = lines.get(i);
            byte[] object = line.substring(line.indexOf("\"object\":") + 9, line.lastIndexOf('}'))
                    .getBytes(StandardCharsets.UTF_8);
            assertSameObject(events.get(i).object(), json.decode(object, type));
        }
    }

    private void create(String path, String body) {
        HttpResponse<String> created = send(HttpRequest.newBuilder(server.resolve(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)), HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as("POST %s: %s", path, created.body()).isEqualTo(201);
    }

    private byte[] get(String path, String accept) {
        return get(path, accept, accept);
    }

    private byte[] get(String path, String accept, String contentType) {
        HttpResponse<byte[]> response = send(HttpRequest.newBuilder(server.resolve(path)).header("Accept", accept),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(response.statusCode()).as("GET %s", path).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).as("GET %s", path)
                .hasValueSatisfying(t -> assertThat(t).startsWith(contentType));
        return response.body();
    }

    private InputStream stream(String path, String accept) {
        HttpResponse<InputStream> response = send(HttpRequest.newBuilder(server.resolve(path)).header("Accept", accept),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).as("GET %s", path).isEqualTo(200);
        return response.body();
    }

    private <T> HttpResponse<T> send(HttpRequest.Builder request, HttpResponse.BodyHandler<T> body) {
        try {
            return http.send(request.build(), body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
