package io.reactiveinformer.e2e.client;

/** {@link WriteContract} against the test kit's simulated API server. */
class WriteOnSimulatedServerTest extends WriteContract {

    WriteOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
