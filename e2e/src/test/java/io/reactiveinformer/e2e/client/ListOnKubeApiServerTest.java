package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link ListContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class ListOnKubeApiServerTest extends ListContract {

    ListOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
