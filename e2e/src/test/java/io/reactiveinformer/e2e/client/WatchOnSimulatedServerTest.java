package io.reactiveinformer.e2e.client;

import org.junit.jupiter.api.AfterEach;

/** {@link WatchContract} against the test kit's simulated API server. */
class WatchOnSimulatedServerTest extends WatchContract {

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
