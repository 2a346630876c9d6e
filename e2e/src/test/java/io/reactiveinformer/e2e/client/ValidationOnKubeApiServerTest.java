package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link ValidationContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class ValidationOnKubeApiServerTest extends ValidationContract {

    ValidationOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
