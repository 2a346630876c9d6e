package io.reactiveinformer.e2e.client;

/** {@link DryRunContract} against the test kit's simulated API server. */
class DryRunOnSimulatedServerTest extends DryRunContract {

    DryRunOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
