package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link WriteContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class WriteOnKubeApiServerTest extends WriteContract {

    WriteOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
