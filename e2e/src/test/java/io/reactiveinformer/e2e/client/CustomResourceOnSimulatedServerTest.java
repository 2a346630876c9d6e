package io.reactiveinformer.e2e.client;

/** {@link CustomResourceContract} against the test kit's simulated API server. */
class CustomResourceOnSimulatedServerTest extends CustomResourceContract {

    CustomResourceOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
