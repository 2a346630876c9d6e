package io.reactiveinformer.codec;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.net.http.HttpClient;

/** {@link ProtobufDecodingContract} on kube-apiserver. */
@KubeApiServerTest
class ProtobufOnKubeApiServerTest extends ProtobufDecodingContract {

    ProtobufOnKubeApiServerTest(KubeApiServer env) {
        super(env.serverUrl(), HttpClient.newBuilder().sslContext(env.admin().sslContext())
                .connectTimeout(TIMEOUT).build());
    }
}
