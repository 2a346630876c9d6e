package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link DefaultsContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class DefaultsOnKubeApiServerTest extends DefaultsContract {

    DefaultsOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
