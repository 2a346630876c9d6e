package io.reactiveinformer.e2e.client;

/** {@link ListContract} against the test kit's simulated API server. */
class ListOnSimulatedServerTest extends ListContract {

    ListOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
