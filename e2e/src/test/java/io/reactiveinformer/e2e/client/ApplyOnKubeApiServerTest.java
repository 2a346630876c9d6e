package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link ApplyContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class ApplyOnKubeApiServerTest extends ApplyContract {

    ApplyOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
