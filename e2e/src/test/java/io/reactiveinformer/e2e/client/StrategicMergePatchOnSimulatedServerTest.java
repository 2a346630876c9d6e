package io.reactiveinformer.e2e.client;

/** {@link StrategicMergePatchContract} against the test kit's simulated API server. */
class StrategicMergePatchOnSimulatedServerTest extends StrategicMergePatchContract {

    StrategicMergePatchOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
