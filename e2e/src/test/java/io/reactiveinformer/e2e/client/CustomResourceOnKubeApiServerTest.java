package io.reactiveinformer.e2e.client;

import org.junit.jupiter.api.AfterEach;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.apiserver.KubeApiServerTest;

/** {@link CustomResourceContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class CustomResourceOnKubeApiServerTest extends CustomResourceContract {

    private final Backend backend;

    CustomResourceOnKubeApiServerTest(KubeApiServer env) {
        this.backend = new KubeApiServerBackend(env);
    }

    @Override
    Backend backend() {
        return backend;
    }

    @AfterEach
    void close() {
        backend.close();
    }
}
