package io.reactiveinformer.e2e.client;

/** {@link DiscoveryContract} against the test kit's simulated API server. */
class DiscoveryOnSimulatedServerTest extends DiscoveryContract {

    DiscoveryOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
