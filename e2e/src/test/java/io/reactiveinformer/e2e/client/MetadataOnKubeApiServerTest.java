package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link MetadataContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class MetadataOnKubeApiServerTest extends MetadataContract {

    MetadataOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
