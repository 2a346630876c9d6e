package io.reactiveinformer.e2e.client;

/** {@link RestartContract} against the test kit's simulated API server. */
class RestartOnSimulatedServerTest extends RestartContract {

    RestartOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
