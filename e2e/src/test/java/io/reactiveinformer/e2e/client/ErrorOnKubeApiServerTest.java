package io.reactiveinformer.e2e.client;

import org.junit.jupiter.api.AfterEach;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.apiserver.KubeApiServerTest;

/** {@link ErrorContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class ErrorOnKubeApiServerTest extends ErrorContract {

    private final Backend backend;

    ErrorOnKubeApiServerTest(KubeApiServer env) {
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
