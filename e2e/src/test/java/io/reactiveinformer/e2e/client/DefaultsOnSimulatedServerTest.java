package io.reactiveinformer.e2e.client;

/** {@link DefaultsContract} against the test kit's simulated API server. */
class DefaultsOnSimulatedServerTest extends DefaultsContract {

    DefaultsOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
