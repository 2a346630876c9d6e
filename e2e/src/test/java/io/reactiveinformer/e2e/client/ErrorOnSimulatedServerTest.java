package io.reactiveinformer.e2e.client;

/** {@link ErrorContract} against the test kit's simulated API server. */
class ErrorOnSimulatedServerTest extends ErrorContract {

    ErrorOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
