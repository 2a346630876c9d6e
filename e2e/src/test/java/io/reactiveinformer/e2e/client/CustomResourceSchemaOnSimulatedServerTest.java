package io.reactiveinformer.e2e.client;

/** {@link CustomResourceSchemaContract} against the test kit's simulated API server. */
class CustomResourceSchemaOnSimulatedServerTest extends CustomResourceSchemaContract {

    CustomResourceSchemaOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
