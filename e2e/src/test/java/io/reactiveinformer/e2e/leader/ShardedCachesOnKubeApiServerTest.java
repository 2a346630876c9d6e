package io.reactiveinformer.e2e.leader;

import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.util.List;

/** {@link ShardedCachesContract} on the real kube-apiserver of {@code testenv/}, its {@code ShardedListAndWatch} gate on. */
@KubeApiServerTest
class ShardedCachesOnKubeApiServerTest extends ShardedCachesContract {

    private final KubeApiServer env;

    ShardedCachesOnKubeApiServerTest(KubeApiServer env) {
        this.env = env;
    }

    @Override
    ClientConfig config() {
        return ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin");
    }

    @Override
    boolean serverFilters() {
        return true;
    }
}
