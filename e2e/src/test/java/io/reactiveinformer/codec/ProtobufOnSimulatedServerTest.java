package io.reactiveinformer.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.net.http.HttpClient;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link ProtobufDecodingContract} on the test kit's simulated server: its protobuf, written by its own encoder
 * from the JSON it stores, decodes with the library's generated decoders to what its JSON decodes to.
 */
class ProtobufOnSimulatedServerTest extends ProtobufDecodingContract {

    private static final SimulatedApiServer SERVER = SimulatedApiServer.start(ClusterState.builder()
            .resource(ResourceType.of(V1ReplicaSet.class)).build());

    ProtobufOnSimulatedServerTest() {
        super(SERVER.url(), HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT)
                .build());
    }

    /**
     * The kit stores objects as JSON, not through Go's structs: where its JSON leaves out what Go always writes
     * (an empty {@code status}, {@code ""} for a string without omitempty), the protobuf, written as Go writes
     * it, holds the zero value; and its lists' items carry their kind, which protobuf's never do. Everything
     * else the JSON holds must be equal.
     */
    @Override
    void assertSameObject(Object fromProtobuf, Object fromJson) {
        assertThat(fromProtobuf).usingRecursiveComparison().ignoringExpectedNullFields()
                .ignoringFieldsMatchingRegexes("items(\\[\\d+\\])?\\.(apiVersion|kind)").isEqualTo(fromJson);
    }

    @AfterAll
    void stop() {
        SERVER.close();
    }
}
