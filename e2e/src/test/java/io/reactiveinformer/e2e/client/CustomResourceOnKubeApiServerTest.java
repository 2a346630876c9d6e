package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link CustomResourceContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class CustomResourceOnKubeApiServerTest extends CustomResourceContract {

    CustomResourceOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
