package io.reactiveinformer.e2e.client;

/** {@link EventsContract} against the test kit's simulated API server. */
class EventsOnSimulatedServerTest extends EventsContract {

    EventsOnSimulatedServerTest() {
        super(new SimulatedBackend());
    }
}
