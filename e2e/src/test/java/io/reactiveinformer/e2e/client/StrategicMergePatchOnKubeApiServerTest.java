package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link StrategicMergePatchContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class StrategicMergePatchOnKubeApiServerTest extends StrategicMergePatchContract {

    StrategicMergePatchOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
