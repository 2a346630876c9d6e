package io.reactiveinformer.e2e.client;

/** {@link FieldSelectorContract} against the test kit's simulated API server. */
class FieldSelectorOnSimulatedServerTest extends FieldSelectorContract {

    FieldSelectorOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
