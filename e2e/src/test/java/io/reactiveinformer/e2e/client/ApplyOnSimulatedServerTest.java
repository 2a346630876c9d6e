package io.reactiveinformer.e2e.client;

/** {@link ApplyContract} against the test kit's simulated API server. */
class ApplyOnSimulatedServerTest extends ApplyContract {

    ApplyOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
