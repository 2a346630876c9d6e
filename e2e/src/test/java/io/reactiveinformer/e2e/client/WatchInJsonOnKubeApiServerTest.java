package io.reactiveinformer.e2e.client;

import io.reactiveinformer.config.Encoding;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link WatchContract} against the real kube-apiserver of {@code testenv/}, the client reading JSON only. */
@KubeApiServerTest
class WatchInJsonOnKubeApiServerTest extends WatchContract {

    WatchInJsonOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env, Encoding.JSON));
    }
}
