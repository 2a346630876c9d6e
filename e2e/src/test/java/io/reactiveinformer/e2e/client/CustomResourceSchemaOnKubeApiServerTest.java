package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link CustomResourceSchemaContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class CustomResourceSchemaOnKubeApiServerTest extends CustomResourceSchemaContract {

    CustomResourceSchemaOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
