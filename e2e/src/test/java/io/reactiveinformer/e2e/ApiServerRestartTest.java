package io.reactiveinformer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;

@KubeApiServerTest
class ApiServerRestartTest {

    private static final Duration RECOVERY = Duration.ofSeconds(60);

    @Test
    void requestsAreRefusedWhileTheApiServerIsDownAndServedAfterItStarts(KubeApiServer env) {
        ApiCalls admin = new ApiCalls(env, env.admin());
        String ns = admin.createNamespace("restart");

        env.stopApiServer();
        try {
            assertThatThrownBy(() -> admin.get("/api/v1/namespaces/" + ns))
                    .hasCauseInstanceOf(ConnectException.class);
        }
        finally {
            env.startApiServer();
        }

        assertThat(admin.get("/api/v1/namespaces/" + ns).statusCode()).isEqualTo(200);
    }

    @Test
    void restartKeepsTheAddressAndTheData(KubeApiServer env) {
        ApiCalls admin = new ApiCalls(env, env.admin());
        String ns = admin.createNamespace("restart");

        env.restartApiServer();

        assertThat(admin.get("/api/v1/namespaces/" + ns).statusCode()).isEqualTo(200);
    }

    @Test
    void apiServerIsUnreadyWhileEtcdIsDownAndRecoversAfterIt(KubeApiServer env) {
        ApiCalls admin = new ApiCalls(env, env.admin());
        String ns = admin.createNamespace("etcd");

        env.stopEtcd();
        try {
            ApiCalls.await(ApiCalls.eventually(() -> admin.sendAsync("GET", "/readyz", null)
                    .thenApply(response -> response.statusCode() != 200), RECOVERY), RECOVERY.plusSeconds(5));
        }
        finally {
            env.startEtcd();
        }
        ApiCalls.await(ApiCalls.eventually(() -> admin.sendAsync("GET", "/readyz", null)
                .thenApply(response -> response.statusCode() == 200), RECOVERY), RECOVERY.plusSeconds(5));

        assertThat(admin.get("/api/v1/namespaces/" + ns).statusCode()).isEqualTo(200);
    }
}
