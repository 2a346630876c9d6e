package io.reactiveinformer.codec;

import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.net.http.HttpClient;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link ProtobufDecodingContract} on the test kit's simulated server: its protobuf, written by its own encoder
 * from the JSON it stores, decodes with the library's generated decoders to what its JSON decodes to.
 */
class ProtobufOnSimulatedServerTest extends ProtobufDecodingContract {

    private static final SimulatedApiServer SERVER = SimulatedApiServer.start(ClusterState.create());

    ProtobufOnSimulatedServerTest() {
        super(SERVER.url(), HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT)
                .build());
    }

    @AfterAll
    void stop() {
        SERVER.close();
    }
}
