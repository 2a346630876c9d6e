package io.reactiveinformer.e2e.client;

/** {@link WatchContract} against the test kit's simulated API server. */
class WatchOnSimulatedServerTest extends WatchContract {

    WatchOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
