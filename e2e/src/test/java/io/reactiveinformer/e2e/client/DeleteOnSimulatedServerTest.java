package io.reactiveinformer.e2e.client;

/** {@link DeleteContract} against the test kit's simulated API server. */
class DeleteOnSimulatedServerTest extends DeleteContract {

    DeleteOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
