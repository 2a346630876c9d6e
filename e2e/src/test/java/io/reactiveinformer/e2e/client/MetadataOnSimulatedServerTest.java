package io.reactiveinformer.e2e.client;

/** {@link MetadataContract} against the test kit's simulated API server. */
class MetadataOnSimulatedServerTest extends MetadataContract {

    MetadataOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
