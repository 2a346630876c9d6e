package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link WatchContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class WatchOnKubeApiServerTest extends WatchContract {

    WatchOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
