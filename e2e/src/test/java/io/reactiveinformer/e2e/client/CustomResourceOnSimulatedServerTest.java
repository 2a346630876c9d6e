package io.reactiveinformer.e2e.client;

import org.junit.jupiter.api.AfterEach;

/** {@link CustomResourceContract} against the test kit's simulated API server. */
class CustomResourceOnSimulatedServerTest extends CustomResourceContract {

    private final Backend backend = new SimulatedBackend();

    @Override
    Backend backend() {
        return backend;
    }

    @AfterEach
    void close() {
        backend.close();
    }
}
