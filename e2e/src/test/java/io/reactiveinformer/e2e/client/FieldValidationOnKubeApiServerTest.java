package io.reactiveinformer.e2e.client;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

/** {@link FieldValidationContract} against the real kube-apiserver of {@code testenv/}. */
@KubeApiServerTest
class FieldValidationOnKubeApiServerTest extends FieldValidationContract {

    FieldValidationOnKubeApiServerTest(KubeApiServer env) {
        super(new KubeApiServerBackend(env));
    }
}
