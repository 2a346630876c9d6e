package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link ErrorContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class ErrorOnKubeApiServerTest extends ErrorContract {

    ErrorOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
