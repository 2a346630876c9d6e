package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link DeleteContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class DeleteOnKubeApiServerTest extends DeleteContract {

    DeleteOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
