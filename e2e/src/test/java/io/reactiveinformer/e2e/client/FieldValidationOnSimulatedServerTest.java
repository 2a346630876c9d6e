package io.reactiveinformer.e2e.client;

/** {@link FieldValidationContract} against the test kit's simulated API server. */
class FieldValidationOnSimulatedServerTest extends FieldValidationContract {

    FieldValidationOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
