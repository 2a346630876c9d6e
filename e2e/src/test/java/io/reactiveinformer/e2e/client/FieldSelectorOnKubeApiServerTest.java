package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link FieldSelectorContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class FieldSelectorOnKubeApiServerTest extends FieldSelectorContract {

    FieldSelectorOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
