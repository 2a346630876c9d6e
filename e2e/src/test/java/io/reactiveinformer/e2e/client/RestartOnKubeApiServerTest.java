package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link RestartContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class RestartOnKubeApiServerTest extends RestartContract {

    RestartOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
