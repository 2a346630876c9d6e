package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link DryRunContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class DryRunOnKubeApiServerTest extends DryRunContract {

    DryRunOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
