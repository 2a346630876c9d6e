package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link DiscoveryContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class DiscoveryOnKubeApiServerTest extends DiscoveryContract {

    DiscoveryOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
