package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link EventsContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class EventsOnKubeApiServerTest extends EventsContract {

    EventsOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
