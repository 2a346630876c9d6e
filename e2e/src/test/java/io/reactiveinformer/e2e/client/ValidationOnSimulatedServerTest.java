package io.reactiveinformer.e2e.client;

/** {@link ValidationContract} against the test kit's simulated API server. */
class ValidationOnSimulatedServerTest extends ValidationContract {

    ValidationOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
